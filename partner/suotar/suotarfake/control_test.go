package suotarfake_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

func TestControlClockAndWorld(t *testing.T) {
	t.Parallel()

	b := setup(t)
	status, body := b.do(t, "POST", "/control/clock/advance", map[string]string{"by": "90m"})
	var clock struct {
		Now   time.Time `json:"now"`
		Scale float64   `json:"scale"`
	}
	if err := json.Unmarshal(body, &clock); status != http.StatusOK || err != nil || !clock.Now.Equal(t0.Add(90*time.Minute)) {
		t.Fatalf("advance = %d %s, want now %s", status, body, t0.Add(90*time.Minute))
	}
	if status, body := b.do(t, "POST", "/control/clock/advance", map[string]string{"by": "-1h"}); status != http.StatusBadRequest {
		t.Errorf("advance backwards = %d %s, want 400", status, body)
	}

	status, body = b.do(t, "GET", "/control/world", nil)
	if status != http.StatusOK {
		t.Fatalf("GET world = %d %s", status, body)
	}
	var w suotarfake.World
	if err := json.Unmarshal(body, &w); err != nil || len(w.Persons) != 3 || w.Persons[0].PrimaryEmail == "" {
		t.Fatalf("world = %v %s, want the fixture unscrubbed", err, body)
	}

	w.Persons = w.Persons[:1]
	if status, body := b.do(t, "PUT", "/control/world", w); status != http.StatusBadRequest || !strings.Contains(string(body), "no person") {
		t.Errorf("PUT an inconsistent world = %d %s, want 400 naming the dangling enrolments", status, body)
	}
	if status, body := b.do(t, "PUT", "/control/world", suotarfake.NewWorld()); status != http.StatusOK {
		t.Fatalf("PUT an empty world = %d %s", status, body)
	}
	wantCode(t, b.one(t, suotarfake.PathResolvePersons, map[string]any{"studentNumber": aino}), "personNotFound")
	wantCode(t, b.one(t, suotarfake.PathValidateCourseCodes, map[string]any{"courseCode": basics}), "courseNotAllowed")
}

func TestControlRipenAndTransitions(t *testing.T) {
	t.Parallel()

	tests := []struct {
		to       string
		code     string
		typ      string
		resolved int // attainments resolve lists for Aino on TKT10002 afterwards
	}{
		{to: "registered", code: "registered", typ: "CourseUnitAttainment", resolved: 3},
		{to: "partial", code: "registered", typ: "AssessmentItemAttainment", resolved: 2},
		{to: "misregistered", code: "misregistered", resolved: 1},
		{to: "lost", code: "notRegistered", resolved: 1},
	}
	for _, tc := range tests {
		t.Run(tc.to, func(t *testing.T) {
			t.Parallel()

			b := setup(t, suotarfake.WithCUDelay(time.Hour)) // would ripen by itself in an hour
			id := str(b.one(t, suotarfake.PathImportAttainments, ainoImport()).Result, "submittedAttainmentId")
			status, body := b.do(t, "POST", "/control/submissions/"+id+"/transition", map[string]string{"to": tc.to})
			if status != http.StatusOK {
				t.Fatalf("transition = %d %s", status, body)
			}
			b.advance(t, 48*time.Hour) // whatever Sisu would do by itself must not undo it
			got := b.verify(t, id)
			wantCode(t, got, tc.code)
			if tc.typ != "" && str(got.Result, "attainment", "type") != tc.typ {
				t.Errorf("registered %v, want %s", got.Result, tc.typ)
			}
			resolved := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": aino, "courseCode": basics})
			if n := len(resolved.Result["existingAttainments"].([]any)); n != tc.resolved {
				t.Errorf("resolve lists %d attainments, want %d (misregistered ones are hidden)", n, tc.resolved)
			}
		})
	}

	t.Run("Ripen", func(t *testing.T) {
		t.Parallel()

		b := setup(t)
		id := str(b.one(t, suotarfake.PathImportAttainments, ainoImport()).Result, "submittedAttainmentId")
		if status, body := b.do(t, "POST", "/control/submissions/"+id+"/ripen", nil); status != http.StatusOK {
			t.Fatalf("ripen = %d %s", status, body)
		}
		if got := b.verify(t, id); str(got.Result, "attainment", "type") != "CourseUnitAttainment" {
			t.Errorf("after ripen: %v, want the course unit attainment at once", got.Result)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		t.Parallel()

		b := setup(t)
		rejected := b.one(t, suotarfake.PathImportAttainments, importItem(carla, basics, carlaBasics, "2026-11-30", "sis-0-5", "4", 5))
		wantCode(t, rejected, "sisuValidationFailed")
		rejectedID := b.fake.World().Submissions[0].ID
		tests := []struct {
			method, path string
			body         any
			status       int
		}{
			{"POST", "/control/submissions/hy-kur-nope/ripen", nil, http.StatusNotFound},
			{"POST", "/control/submissions/" + rejectedID + "/ripen", nil, http.StatusConflict},
			{"POST", "/control/submissions/" + rejectedID + "/transition", map[string]string{"to": "sideways"}, http.StatusBadRequest},
			{"POST", "/control/submissions/" + rejectedID + "/transition", "{", http.StatusBadRequest},
			{"GET", "/control/no-such-thing", nil, http.StatusNotFound},
		}
		for _, tc := range tests {
			if status, body := b.do(t, tc.method, tc.path, tc.body); status != tc.status {
				t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, status, body, tc.status)
			}
		}
	})
}

func TestControlFaultsAndCalls(t *testing.T) {
	t.Parallel()

	b := setup(t)
	status, body := b.do(t, "POST", "/control/faults", suotarfake.Fault{Effect: suotarfake.FaultItemCode, Code: "personNotFound",
		Endpoint: suotarfake.PathResolvePersons, Match: aino, Times: 2, Skip: 1})
	var added suotarfake.Fault
	if err := json.Unmarshal(body, &added); status != http.StatusCreated || err != nil || added.ID == "" {
		t.Fatalf("POST fault = %d %s", status, body)
	}
	if status, body := b.do(t, "POST", "/control/faults", map[string]any{"effect": "explode"}); status != http.StatusBadRequest {
		t.Errorf("unknown effect = %d %s, want 400", status, body)
	}
	if status, body := b.do(t, "POST", "/control/faults", map[string]any{"effect": "latency"}); status != http.StatusBadRequest {
		t.Errorf("latency without a delay = %d %s, want 400", status, body)
	}

	// Skip 1, then 2 matching calls, then gone; other students and endpoints never match.
	var codes []string
	for range 4 {
		got := b.batch(t, suotarfake.PathResolvePersons, map[string]any{"studentNumber": aino}, map[string]any{"studentNumber": bertil})
		codes = append(codes, got[0].Code+"/"+got[1].Code)
		wantCode(t, b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": aino, "courseCode": basics}), "enrolmentFound")
	}
	want := []string{"personFound/personFound", "personNotFound/personFound", "personNotFound/personFound", "personFound/personFound"}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("codes = %v, want %v", codes, want)
	}
	if status, body := b.do(t, "GET", "/control/faults", nil); status != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("faults after their lifetime = %d %s, want []", status, body)
	}

	id, _ := b.fake.AddFault(suotarfake.Fault{Effect: suotarfake.FaultUnavailable})
	if status, _ := b.do(t, "POST", "/api/"+suotarfake.PathResolvePersons, `[{"requestItemId":"a","studentNumber":"1"}]`); status != http.StatusServiceUnavailable {
		t.Errorf("with an unavailable fault = %d, want 503", status)
	}
	if status, body := b.do(t, "DELETE", "/control/faults/"+id, nil); status != http.StatusNoContent {
		t.Errorf("DELETE fault = %d %s", status, body)
	}
	if status, _ := b.do(t, "DELETE", "/control/faults/"+id, nil); status != http.StatusNotFound {
		t.Errorf("DELETE it again = %d, want 404", status)
	}

	status, body = b.do(t, "GET", "/control/calls", nil)
	var calls []suotarfake.Call
	if err := json.Unmarshal(body, &calls); status != http.StatusOK || err != nil || len(calls) != 9 {
		t.Fatalf("GET calls = %d, %d calls (%v), want 9", status, len(calls), err)
	}
	if c := calls[1]; c.Endpoint != suotarfake.PathResolveEnrolments || c.Codes[0] != "enrolmentFound" || c.Latency < 0 {
		t.Errorf("second call = %+v", c)
	}
	if c := calls[2]; len(c.Faults) != 1 || !strings.HasSuffix(c.Faults[0], ":itemCode") || c.Codes[0] != "personNotFound" {
		t.Errorf("faulted call = %+v, want the fault named", c)
	}
	if c := calls[8]; c.Status != http.StatusServiceUnavailable {
		t.Errorf("last call = %+v, want the 503", c)
	}
	if status, _ := b.do(t, "DELETE", "/control/calls", nil); status != http.StatusNoContent || len(b.fake.Calls()) != 0 {
		t.Errorf("DELETE calls = %d, %d calls left", status, len(b.fake.Calls()))
	}
}

func TestWorldRoundTrip(t *testing.T) {
	t.Parallel()

	b := setup(t)
	id := str(b.one(t, suotarfake.PathImportAttainments, ainoImport()).Result, "submittedAttainmentId")
	b.advance(t, 40*time.Hour) // the course unit attainment is written into the world
	world := b.fake.World()
	if len(world.Submissions) != 1 || len(world.Attainments) != 4 {
		t.Fatalf("world has %d submissions and %d attainments, want 1 and 4", len(world.Submissions), len(world.Attainments))
	}

	path := filepath.Join(t.TempDir(), "world.json")
	if err := world.Save(path); err != nil {
		t.Fatalf("Save: %v", err)
	}
	loaded, err := suotarfake.LoadWorld(path)
	if err != nil {
		t.Fatalf("LoadWorld: %v", err)
	}
	if !reflect.DeepEqual(normalise(t, loaded), normalise(t, world)) {
		t.Errorf("loaded world differs from the saved one")
	}
	if sub, _ := loaded.Submission(id); sub.CUDelay == nil || sub.CreatedAt.IsZero() {
		t.Errorf("loaded submission = %+v, want its plan and time", sub)
	}

	// A server started from the saved world answers as the first one did.
	again := setup(t, suotarfake.WithWorld(loaded), suotarfake.WithClock(suotarfake.NewClock(t0.Add(40*time.Hour), 0)))
	if got := again.verify(t, id); str(got.Result, "attainment", "type") != "CourseUnitAttainment" {
		t.Errorf("verify on the reloaded world = %v, want the course unit attainment", got.Result)
	}
}

// normalise drops what JSON cannot carry (monotonic readings, locations) so worlds compare by
// content.
func normalise(t *testing.T, w *suotarfake.World) *suotarfake.World {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var out suotarfake.World
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestLoadWorldRefusesNonsense(t *testing.T) {
	t.Parallel()

	tests := []struct{ name, json, want string }{
		{name: "NotJSON", json: `{"persons": [`, want: "unexpected end"},
		{name: "RepeatedStudentNumber", json: `{"persons":[{"studentNumber":"1","personId":"a"},{"studentNumber":"1","personId":"b"}]}`, want: `student number "1" appears twice`},
		{name: "DanglingEnrolment", json: `{"enrolments":[{"id":"e","personId":"p","courseUnitRealisationId":"r","state":"ENROLLED"}]}`, want: `no person "p"`},
		{name: "BadDate", json: `{"attainments":[{"id":"a","type":"CourseUnitAttainment","attainmentDate":"1.1.2026"}]}`, want: "not YYYY-MM-DD"},
		{name: "BadSendState", json: `{"submissions":[{"id":"s","sendState":"MAYBE","createdAt":"2026-01-01T00:00:00Z","attainmentDate":"2026-01-01"}]}`, want: `send state "MAYBE"`},
		{name: "BadDuration", json: `{"submissions":[{"id":"s","sendState":"ACCEPTED","createdAt":"2026-01-01T00:00:00Z","attainmentDate":"2026-01-01","cuDelay":"soon"}]}`, want: "duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			path := filepath.Join(t.TempDir(), "world.json")
			if err := writeFile(path, tc.json); err != nil {
				t.Fatal(err)
			}
			_, err := suotarfake.LoadWorld(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadWorld = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := suotarfake.LoadWorld(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadWorld of a missing file succeeded")
	}
}

func TestBuildersDeriveStableIDs(t *testing.T) {
	t.Parallel()

	build := func() *suotarfake.World {
		return suotarfake.NewWorld().
			AddPerson(suotarfake.Person{StudentNumber: aino}).
			AddCourseUnit(suotarfake.CourseUnit{Code: basics, GradeScaleID: "sis-0-5", Realisations: []suotarfake.Realisation{{}}})
	}
	w1, w2 := build(), build()
	if !reflect.DeepEqual(w1, w2) {
		t.Fatal("the same builder calls gave different worlds")
	}
	cu := w1.CourseUnits[0]
	if !strings.HasPrefix(w1.Persons[0].PersonID, "hy-hlo-") || !strings.HasPrefix(cu.ID, cu.GroupID+"-") ||
		!strings.HasPrefix(cu.Realisations[0].ID, "otm-") || cu.Realisations[0].AssessmentItemID == "" {
		t.Errorf("derived ids = %+v %+v", w1.Persons[0], cu)
	}
	w1.AddEnrolment(suotarfake.Enrolment{PersonID: w1.Persons[0].PersonID, CourseUnitRealisationID: cu.Realisations[0].ID})
	if e := w1.Enrolments[0]; e.State != suotarfake.StateEnrolled || e.ID != "otm-"+suotarfake.DeriveUUID("enrolment", e.PersonID, e.CourseUnitRealisationID) {
		t.Errorf("derived enrolment = %+v", e)
	}
	if err := w1.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
