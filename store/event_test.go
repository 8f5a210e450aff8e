package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
)

func TestEventInsertLookupRecordsWithoutTouchingTheRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "A", Email: "a@example.invalid"})
	id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "submission_uncertain"})
	before, err := st.RegistrationGet(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}

	requested := storetest.Now()
	answered := requested.Add(1500 * time.Millisecond)
	evID, err := st.EventInsertLookup(ctx, store.LookupEvent{
		RegistrationID: id, CreatedAt: answered, Message: "Registered in Sisu",
		Details:  json.RawMessage(`{"verdict":{"kind":"registered"},"duration_ms":1500}`),
		Endpoint: store.EndpointResolveEnrolments, RequestedAt: requested, AnsweredAt: &answered, Answer: store.AnswerAnswered,
	})
	if err != nil {
		t.Fatalf("EventInsertLookup: %v", err)
	}

	events, err := st.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	e := events[0]
	if e.ID != evID || e.Kind != "sisu_lookup" || e.ToState != nil || e.FromState != nil {
		t.Fatalf("newest event = %+v, want the sisu_lookup with no state", e)
	}
	if !e.CreatedAt.Equal(answered) || e.SuotarAnswer == nil || *e.SuotarAnswer != "answered" ||
		e.SuotarEndpoint == nil || *e.SuotarEndpoint != "resolve_enrolments" || e.SuotarAnsweredAt == nil || !e.SuotarAnsweredAt.Equal(answered) {
		t.Errorf("event = %+v, want the call's times, endpoint and answer", e)
	}
	var details struct {
		DurationMS int `json:"duration_ms"`
	}
	if err := json.Unmarshal(e.Details, &details); err != nil || details.DurationMS != 1500 {
		t.Errorf("details = %s (%v), want duration_ms 1500", e.Details, err)
	}

	after, err := st.RegistrationGet(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) || after.State != before.State {
		t.Errorf("the row changed: version %d → %d, updated_at %v → %v", before.Version, after.Version, before.UpdatedAt, after.UpdatedAt)
	}

	_, err = st.EventInsertLookup(ctx, store.LookupEvent{RegistrationID: storetest.NewID(), CreatedAt: answered,
		Endpoint: store.EndpointResolveEnrolments, RequestedAt: requested, Answer: store.AnswerUnanswered})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a lookup of an unknown row: err = %v, want ErrNotFound", err)
	}
}
