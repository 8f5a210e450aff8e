package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"regdesk/store/storetest"
)

func TestRegistrationListChangedSince(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	alert := storetest.Now().Add(-46 * time.Minute)
	at := func(d time.Duration) time.Time { return alert.Add(d) }
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "a@example.fi", StudentNumber: "011"})
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Kurssi", Code: "TKT1"})
	other := storetest.AddCourse(t, st, storetest.Course{Name: "Toinen", Code: "TKT2"})
	add := func(c storetest.Course, changed time.Time) string {
		return storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: c, State: "awaiting_verification", StateChangedAt: changed})
	}
	moved := add(course, at(10*time.Minute)) // its fixture history moves it after the alert
	movedLater := add(course, at(30*time.Minute))
	before := add(course, at(-time.Hour)) // moved before the alert only
	polled := add(course, at(-time.Hour))
	exec(t, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state)
VALUES ($1, $2, $3, 'state_changed', 'awaiting_verification', 'awaiting_verification')`, storetest.NewID(), at(5*time.Minute), polled)
	lookedUp := add(course, at(-time.Hour))
	staff := storetest.NewID()
	exec(t, st, `INSERT INTO accounts (id, name, email, role) VALUES ($1, 'Mikko Mallikas', 'mikko@example.fi', 'support')`, staff)
	exec(t, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, actor_user_id)
VALUES ($1, $2, $3, 'sisu_lookup', $4)`, storetest.NewID(), at(20*time.Minute), lookedUp, staff)
	dismissed := add(course, at(-time.Hour))
	exec(t, st, `INSERT INTO credit_registration_admin_actions (id, created_at, action, target_kind, target_id, actor_user_id, actor_role, reason)
VALUES ($1, $2, 'dismiss_attention', 'credit_registration', $3, $4, 'support', 'known')`, storetest.NewID(), at(40*time.Minute), dismissed, staff)
	elsewhere := add(other, at(10*time.Minute))

	got, err := st.RegistrationListChangedSince(ctx, course.ID, alert, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dismissed, movedLater, lookedUp, moved}
	if !slices.Equal(got, want) {
		t.Errorf("RegistrationListChangedSince = %v, want %v (dismissed, movedLater, lookedUp, moved)", got, want)
	}
	for _, id := range []string{before, polled, elsewhere} {
		if slices.Contains(got, id) {
			t.Errorf("RegistrationListChangedSince lists %s, which has nothing worth a mention since the alert", id)
		}
	}
	if got, _ := st.RegistrationListChangedSince(ctx, course.ID, alert, nil, 2); !slices.Equal(got, want[:2]) {
		t.Errorf("with limit 2 = %v, want %v", got, want[:2])
	}
	if got, _ := st.RegistrationListChangedSince(ctx, course.ID, alert, []string{other.ID}, 10); len(got) != 0 {
		t.Errorf("with a scope without the course = %v, want nothing", got)
	}
	if got, err := st.RegistrationListChangedSince(ctx, "nope", alert, nil, 10); err != nil || len(got) != 0 {
		t.Errorf("for a malformed course id = %v, %v; want nothing", got, err)
	}
}
