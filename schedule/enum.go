package schedule

import (
	"fmt"
	"strings"
)

// ParseError reports input that names no value of one of this package's
// enumerations. Its message is for logs and tests; the edge words the refusal
// for a person from Kind (a code, spaces for underscores), Input and Valid.
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

// enumTable keeps each enumeration's values in display order. It holds no words: the edge
// names a value and explains it from its catalogue (the value is the code it looks up).
type enumTable[T ~string] struct {
	kind   string
	values []T
	index  map[T]int
	// byName maps lower-cased values to their place, for parsing.
	byName map[string]int
}

func newEnumTable[T ~string](kind string, values ...T) *enumTable[T] {
	e := &enumTable[T]{kind: kind, values: values, index: map[T]int{}, byName: map[string]int{}}
	for i, v := range values {
		if v == "" {
			panic(fmt.Sprintf("schedule: %s has an empty value", kind))
		}
		e.index[v] = i
		e.byName[strings.ToLower(string(v))] = i
	}
	if len(e.index) != len(values) || len(e.byName) != len(values) {
		panic(fmt.Sprintf("schedule: duplicate %s value", kind))
	}
	return e
}

func (e *enumTable[T]) list() []T { return append([]T(nil), e.values...) }

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

// parse accepts a value, ignoring case and surrounding space, since people type what they see
// in a URL.
func (e *enumTable[T]) parse(s string) (T, error) {
	if i, ok := e.byName[strings.ToLower(strings.TrimSpace(s))]; ok {
		return e.values[i], nil
	}
	valid := make([]string, len(e.values))
	for i, v := range e.values {
		valid[i] = string(v)
	}
	return "", &ParseError{Kind: e.kind, Input: s, Valid: valid}
}
