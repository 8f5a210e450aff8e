package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Scope is the courses a read or an action may reach. It fails closed: the zero value reaches no
// course, so a scope somebody forgot to set reads nothing. Every course is said explicitly, with
// AllCourses, which only support and admins get; a teacher gets CoursesOnly(their courses).
//
// The check sits where the data is read: every statement that reads or locks ledger rows for a
// person takes the scope as its argument (sqlInScope, sqlStudentInScope), inside the transaction
// that reads them, so a row outside it is simply not found (ErrNotFound, or left out of a list)
// and nothing between the route and the statement can widen it.
type Scope struct {
	all     bool
	courses []string
}

// AllCourses is every course: the scope of support and admins, and of regdesk's own background
// work that reports to them.
func AllCourses() Scope { return Scope{all: true} }

// CoursesOnly is the given courses (a teacher's): none when ids is empty. The ids are copied.
func CoursesOnly(ids []string) Scope { return Scope{courses: slices.Clone(ids)} }

// All reports whether s is every course.
func (s Scope) All() bool { return s.all }

// Courses returns the courses of a CoursesOnly scope (a copy), and nil for AllCourses: ask All
// first.
func (s Scope) Courses() []string {
	if s.all {
		return nil
	}
	return slices.Clone(s.courses)
}

// Has reports whether s reaches the course.
func (s Scope) Has(courseID string) bool { return s.all || slices.Contains(s.courses, courseID) }

// arg is s as a statement's uuid[] argument, so that every statement keeps one text: NULL for
// every course, the ids otherwise, and an empty array (matching nothing) for none.
func (s Scope) arg() []string {
	if s.all {
		return nil
	}
	if s.courses == nil {
		return []string{}
	}
	return s.courses
}

// String describes s for logs and test failures.
func (s Scope) String() string {
	if s.all {
		return "all courses"
	}
	return fmt.Sprintf("courses %v", s.courses)
}

// scopeJSON is Scope's stored form (BulkApplyParams in bulk_jobs.params).
type scopeJSON struct {
	All     bool     `json:"all,omitempty"`
	Courses []string `json:"courses"`
}

// MarshalJSON writes s as {"all":true} or {"courses":[…]}, so a stored job keeps its scope.
func (s Scope) MarshalJSON() ([]byte, error) {
	if s.all {
		return json.Marshal(scopeJSON{All: true})
	}
	return json.Marshal(scopeJSON{Courses: s.arg()})
}

// UnmarshalJSON reads what MarshalJSON writes. It fails closed too: null, {} or a missing
// "courses" is no course, never every course. A bare array, the form jobs stored while the scope
// was a []string, is those courses; their null (then every course) now reads as none, so such a
// job finds no row rather than more than its owner may reach.
func (s *Scope) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*s = Scope{}
		return nil
	}
	if len(b) > 0 && b[0] == '[' {
		var ids []string
		if err := json.Unmarshal(b, &ids); err != nil {
			return fmt.Errorf("scope: %w", err)
		}
		*s = CoursesOnly(ids)
		return nil
	}
	var v scopeJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	if v.All {
		*s = AllCourses()
		return nil
	}
	*s = CoursesOnly(v.Courses)
	return nil
}
