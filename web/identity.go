package web

import (
	"context"
	"slices"

	"regdesk/store"
)

// Role is what a signed-in person may do.
type Role string

// The roles. Admins do everything, support staff triage and act, teachers read their courses.
const (
	RoleAdmin   Role = "admin"
	RoleSupport Role = "support"
	RoleTeacher Role = "teacher"
)

// Actor is the person a request acts for: who is recorded on every change they make.
type Actor struct {
	ID    string
	Name  string
	Email string
	Role  Role
	// CourseIDs are the courses a teacher teaches; empty for other roles.
	CourseIDs []string
	// Language is the language the person chose in the header ("fi", "sv", "en"); empty when they
	// never chose, and pages follow their browser.
	Language string
	// LMSUserID is the LMS user the person is: hand actions are asked of the LMS as that user.
	// "" when the account names none.
	LMSUserID string
}

// actionActor is the person as a hand action records them.
func (a *Actor) actionActor() store.ActionActor {
	return store.ActionActor{ID: a.ID, Role: string(a.Role), LMSUserID: a.LMSUserID}
}

// CanAct reports whether the actor may change registrations (every hand action, lookups).
func (a *Actor) CanAct() bool { return a != nil && (a.Role == RoleAdmin || a.Role == RoleSupport) }

// Scope returns the courses the actor may see. It fails closed: only support and admins get
// store.AllCourses; a teacher gets their own courses, and anyone else (no actor, a role this code
// does not know) the zero store.Scope, which reads nothing.
func (a *Actor) Scope() store.Scope {
	if a != nil && (a.Role == RoleAdmin || a.Role == RoleSupport) {
		return store.AllCourses()
	}
	if a == nil || a.Role != RoleTeacher {
		return store.Scope{}
	}
	return store.CoursesOnly(a.CourseIDs)
}

// Teaches reports whether a teacher teaches the course.
func (a *Actor) Teaches(courseID string) bool { return slices.Contains(a.CourseIDs, courseID) }

const actorKey ctxKey = iota + 100

// withActor returns ctx carrying a.
func withActor(ctx context.Context, a *Actor) context.Context {
	return context.WithValue(ctx, actorKey, a)
}

// actorFrom returns the signed-in person, or nil for an anonymous request.
func actorFrom(ctx context.Context) *Actor {
	a, _ := ctx.Value(actorKey).(*Actor)
	return a
}
