package schedule

import (
	"fmt"
	"strings"
)

// ParseError reports input that names no value of one of this package's
// enumerations. Its message is written for the person who typed the input, so
// a handler may show it as it is (HTML-escaped, like any text).
type ParseError struct {
	// Kind is what was asked for, such as "registration state".
	Kind string
	// Input is the text as given.
	Input string
	// Valid lists the accepted values in display order.
	Valid []string
}

// Error says what was wrong and lists what would have been accepted.
func (e *ParseError) Error() string {
	if strings.TrimSpace(e.Input) == "" {
		return fmt.Sprintf("no %s given; use one of %s", e.Kind, strings.Join(e.Valid, ", "))
	}
	return fmt.Sprintf("%q is not a known %s; use one of %s", e.Input, e.Kind, strings.Join(e.Valid, ", "))
}

// enumEntry describes one value of a string enumeration.
type enumEntry[T ~string] struct {
	value       T
	label       string
	explanation string
}

// enumTable keeps each enumeration's values, order, labels and explanations
// in one list, so they cannot drift apart.
type enumTable[T ~string] struct {
	kind    string
	entries []enumEntry[T]
	index   map[T]int
	// byName maps lower-cased values and labels to entries, for parsing.
	byName map[string]int
}

func newEnumTable[T ~string](kind string, entries ...enumEntry[T]) *enumTable[T] {
	e := &enumTable[T]{kind: kind, entries: entries, index: map[T]int{}, byName: map[string]int{}}
	for i, ent := range entries {
		if ent.value == "" || ent.label == "" || ent.explanation == "" {
			panic(fmt.Sprintf("schedule: %s %q lacks a value, label or explanation", kind, ent.value))
		}
		e.index[ent.value] = i
		for _, name := range []string{strings.ToLower(string(ent.value)), strings.ToLower(ent.label)} {
			if j, dup := e.byName[name]; dup && j != i {
				panic(fmt.Sprintf("schedule: %s name %q is ambiguous", kind, name))
			}
			e.byName[name] = i
		}
	}
	if len(e.index) != len(entries) {
		panic(fmt.Sprintf("schedule: duplicate %s value", kind))
	}
	return e
}

func (e *enumTable[T]) values() []T {
	out := make([]T, len(e.entries))
	for i, ent := range e.entries {
		out[i] = ent.value
	}
	return out
}

func (e *enumTable[T]) valid(v T) bool {
	_, ok := e.index[v]
	return ok
}

// position is v's place in display order, or -1.
func (e *enumTable[T]) position(v T) int {
	if i, ok := e.index[v]; ok {
		return i
	}
	return -1
}

// label falls back to the raw value, so a value added to the database before
// this package learns it still shows as something.
func (e *enumTable[T]) label(v T) string {
	if i, ok := e.index[v]; ok {
		return e.entries[i].label
	}
	return string(v)
}

func (e *enumTable[T]) explanation(v T) string {
	if i, ok := e.index[v]; ok {
		return e.entries[i].explanation
	}
	return ""
}

// parse accepts a value or its label, ignoring case and surrounding space,
// since people type what they see on the page.
func (e *enumTable[T]) parse(s string) (T, error) {
	if i, ok := e.byName[strings.ToLower(strings.TrimSpace(s))]; ok {
		return e.entries[i].value, nil
	}
	valid := make([]string, len(e.entries))
	for i, ent := range e.entries {
		valid[i] = string(ent.value)
	}
	return "", &ParseError{Kind: e.kind, Input: s, Valid: valid}
}
