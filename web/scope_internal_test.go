package web

import "testing"

// Scope fails closed: every course only for support and admins, a teacher's own courses, and
// nothing for anyone else, a role added later included.
func TestScopeFailsClosed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		actor *Actor
		all   bool
		n     int
	}{
		{&Actor{Role: RoleAdmin}, true, 0},
		{&Actor{Role: RoleSupport}, true, 0},
		{&Actor{Role: RoleTeacher, CourseIDs: []string{"a", "b"}}, false, 2},
		{&Actor{Role: RoleTeacher}, false, 0},
		{&Actor{Role: Role("auditor")}, false, 0},
		{&Actor{}, false, 0},
		{nil, false, 0},
	}
	for _, c := range cases {
		got := c.actor.Scope()
		if got.All() != c.all || len(got.Courses()) != c.n {
			t.Errorf("Scope of %+v = %v; want all=%v, %d courses", c.actor, got, c.all, c.n)
		}
		if !c.all && got.Has("c") {
			t.Errorf("Scope of %+v = %v reaches a course not its own", c.actor, got)
		}
	}
}
