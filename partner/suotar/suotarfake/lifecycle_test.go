package suotarfake_test

import (
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

// TestImportThenVerifyAlongTheClock walks one submission through what Sisu does with it: nothing
// visible, the assessment item attainment after the importer lag (partial), the course unit
// attainment after its delay (final).
func TestImportThenVerifyAlongTheClock(t *testing.T) {
	t.Parallel()

	b := setup(t, suotarfake.WithCUDelay(6*time.Hour))
	sent := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	wantCode(t, sent, "sent")
	id := str(sent.Result, "submittedAttainmentId")
	cuID := "otm-" + suotarfake.DeriveUUID("course-unit-attainment", id)

	steps := []struct {
		after      time.Duration // since the import
		code, typ  string
		id         string
		retryAfter time.Time
	}{
		{after: 0, code: "submissionPending", retryAfter: t0.Add(24 * time.Hour)},
		{after: 59 * time.Minute, code: "submissionPending", retryAfter: t0.Add(59*time.Minute + 24*time.Hour)},
		{after: time.Hour, code: "registered", typ: "AssessmentItemAttainment", id: id},
		{after: 6*time.Hour - time.Second, code: "registered", typ: "AssessmentItemAttainment", id: id},
		{after: 6 * time.Hour, code: "registered", typ: "CourseUnitAttainment", id: cuID},
		{after: 30 * 24 * time.Hour, code: "registered", typ: "CourseUnitAttainment", id: cuID},
	}
	var elapsed time.Duration
	for _, step := range steps {
		b.advance(t, step.after-elapsed)
		elapsed = step.after
		got := b.verify(t, id)
		wantCode(t, got, step.code)
		switch step.code {
		case "submissionPending":
			if str(got.Result, "submittedAttainmentId") != id || str(got.Result, "retryAfter") != step.retryAfter.Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("at +%v: pending result = %v, want retryAfter %s", step.after, got.Result, step.retryAfter)
			}
		case "registered":
			if str(got.Result, "attainment", "type") != step.typ || str(got.Result, "attainment", "id") != step.id {
				t.Errorf("at +%v: registered %v, want %s %s", step.after, got.Result, step.typ, step.id)
			}
		}
	}

	// Resolve now lists both attainments, the course unit one dated when it appeared.
	got := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": aino, "courseCode": basics})
	existing := got.Result["existingAttainments"].([]any)
	if len(existing) != 3 {
		t.Fatalf("existing attainments = %v, want the earlier one, the AI and the CU", existing)
	}
	cu := existing[2].(map[string]any)
	if str(cu, "id") != cuID || str(cu, "registrationDate") != "2026-12-01" || str(cu, "attainmentDate") != "2026-11-30" || str(cu, "gradeId") != "4" {
		t.Errorf("course unit attainment = %v", cu)
	}
}

func TestDefaultCUDelayIsFiveToTwentyNineHoursMostlyEarly(t *testing.T) {
	t.Parallel()

	early := 0
	const n = 2000
	for i := range n {
		id := "hy-kur-" + suotarfake.DeriveUUID("spread", string(rune(i)))
		d := suotarfake.DefaultCUDelay(id)
		if d != suotarfake.DefaultCUDelay(id) {
			t.Fatalf("DefaultCUDelay(%s) changes between calls", id)
		}
		if d < 5*time.Hour || d > 29*time.Hour {
			t.Fatalf("DefaultCUDelay(%s) = %v, want 5h..29h", id, d)
		}
		if d < 17*time.Hour {
			early++
		}
	}
	if share := float64(early) / n; share < 0.6 || share > 0.8 {
		t.Errorf("share in the first half = %.2f, want most (about 0.71)", share)
	}
}

func TestDefaultCUDelayDecidesWhenTheCourseUnitShows(t *testing.T) {
	t.Parallel()

	b := setup(t, suotarfake.WithSeed("lifecycle"))
	id := str(b.one(t, suotarfake.PathImportAttainments, ainoImport()).Result, "submittedAttainmentId")
	if want := "hy-kur-" + suotarfake.DeriveUUID("submission", "lifecycle", "1"); id != want {
		t.Fatalf("seeded id = %s, want %s", id, want)
	}
	delay := suotarfake.DefaultCUDelay(id)
	if sub, _ := b.fake.World().Submission(id); sub.CUDelay == nil || time.Duration(*sub.CUDelay) != delay {
		t.Errorf("submission's ripening plan = %v, want %v", sub.CUDelay, delay)
	}
	b.advance(t, delay-time.Second)
	if got := b.verify(t, id); str(got.Result, "attainment", "type") != "AssessmentItemAttainment" {
		t.Errorf("a second before %v: %v, want partial", delay, got.Result)
	}
	b.advance(t, time.Second)
	if got := b.verify(t, id); str(got.Result, "attainment", "type") != "CourseUnitAttainment" {
		t.Errorf("at %v: %v, want the course unit attainment", delay, got.Result)
	}
}

// TestSecondIdenticalImportInsideTheLagIsAccepted reproduces the hazard Suotar's pending window
// exists for: its duplicate check reads the importer's lagged copy.
func TestSecondIdenticalImportInsideTheLagIsAccepted(t *testing.T) {
	t.Parallel()

	b := setup(t)
	first := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	b.advance(t, 59*time.Minute)
	second := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	wantCode(t, first, "sent")
	wantCode(t, second, "sent")
	firstID, secondID := str(first.Result, "submittedAttainmentId"), str(second.Result, "submittedAttainmentId")
	if firstID == secondID {
		t.Fatalf("both imports named %s, want two submissions", firstID)
	}
	ais := 0
	for _, a := range b.fake.World().Attainments {
		if a.ID == firstID || a.ID == secondID {
			ais++
		}
	}
	if ais != 2 {
		t.Errorf("%d assessment item attainments in Sisu, want 2: the student now holds the completion twice", ais)
	}

	b.advance(t, time.Minute) // the first is now in the importer copy
	third := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	wantCode(t, third, "duplicateAttainment")
	if got := str(third.Result, "attainment", "id"); got != firstID {
		t.Errorf("duplicate names %s, want the first submission %s", got, firstID)
	}
}

func TestRecentSendsCatchRepeatsInsideTheLag(t *testing.T) {
	t.Parallel()

	b := setup(t, suotarfake.WithRecentSends())
	got := b.batch(t, suotarfake.PathImportAttainments, ainoImport(), ainoImport())
	wantCode(t, got[0], "sent")
	wantCode(t, got[1], "duplicateRequestItem")
	id := str(got[0].Result, "submittedAttainmentId")
	if str(got[1].Result, "submittedAttainmentId") != id || got[1].Status != "error" {
		t.Errorf("duplicateRequestItem = %+v, want an error item naming %s", got[1], id)
	}
	b.advance(t, 10*time.Minute)
	again := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	wantCode(t, again, "duplicateAttainment")
	if str(again.Result, "attainment", "id") != id || str(again.Result, "attainment", "type") != "AssessmentItemAttainment" {
		t.Errorf("duplicateAttainment = %v, want Suotar's own send %s", again.Result, id)
	}
	if _, hasState := again.Result["attainment"].(map[string]any)["state"]; hasState {
		t.Errorf("a recent send has no state yet: %v", again.Result)
	}
	if n := len(b.fake.World().Submissions); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}

// TestPendingWindow checks verify against Suotar's 24-hour PENDING_WINDOW for each send state.
func TestPendingWindow(t *testing.T) {
	t.Parallel()

	sub := func(id, state string, age time.Duration) suotarfake.Submission {
		return suotarfake.Submission{ID: id, StudentNumber: aino, PersonID: ainoPerson, CourseCode: basics, AttainmentDate: "2026-11-01",
			GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5, SendState: state, CreatedAt: suotarfake.DateTime{Time: t0.Add(-age)}}
	}
	w := fixtureWorld().
		AddSubmission(sub("hy-kur-attempted-recent", suotarfake.SendAttempted, 23*time.Hour)).
		AddSubmission(sub("hy-kur-attempted-old", suotarfake.SendAttempted, 25*time.Hour)).
		AddSubmission(sub("hy-kur-accepted-old", suotarfake.SendAccepted, 30*time.Hour)).
		AddSubmission(sub("hy-kur-not-sent", suotarfake.SendNotSent, time.Minute)).
		AddSubmission(sub("hy-kur-rejected", suotarfake.SendRejected, time.Minute)).
		AddAttainment(suotarfake.Attainment{ID: "otm-misregistered", Type: suotarfake.TypeCourseUnit, PersonID: ainoPerson, CourseUnitID: "hy-CU-137765567-2020-08-01",
			AttainmentDate: "2026-01-01", State: suotarfake.StateAttained, GradeScaleID: "sis-0-5", GradeID: "1", Credits: 5, Misregistration: true})
	b := setup(t, suotarfake.WithWorld(w))

	tests := []struct {
		id, code   string
		retryAfter time.Time
	}{
		{id: "hy-kur-attempted-recent", code: "submissionPending", retryAfter: t0.Add(time.Hour)},
		{id: "hy-kur-attempted-old", code: "notRegistered"},
		{id: "hy-kur-accepted-old", code: "submissionPending", retryAfter: t0.Add(24 * time.Hour)},
		{id: "hy-kur-not-sent", code: "notRegistered"},
		{id: "hy-kur-rejected", code: "notRegistered"},
		{id: "hy-kur-never-heard-of", code: "notRegistered"},
		{id: ainoEarlierBasics, code: "registered"}, // never submitted: answered from Sisu alone
		{id: "otm-misregistered", code: "misregistered"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()

			got := b.verify(t, tc.id)
			wantCode(t, got, tc.code)
			if !tc.retryAfter.IsZero() && str(got.Result, "retryAfter") != tc.retryAfter.Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("retryAfter = %s, want %s", str(got.Result, "retryAfter"), tc.retryAfter)
			}
		})
	}
}

// TestForcedSisuTimeout covers both sisuTimeout variants: the send landed (the attainment shows
// after the lag) or nothing landed (pending for the window, then notRegistered).
func TestForcedSisuTimeout(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name           string
		landed         bool
		afterLag, late string
	}{
		{name: "Landed", landed: true, afterLag: "registered", late: "registered"},
		{name: "NothingLanded", landed: false, afterLag: "submissionPending", late: "notRegistered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			b := setup(t, suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultItemCode, Code: "sisuTimeout", Match: aino, Landed: tc.landed, Times: 1}))
			got := b.one(t, suotarfake.PathImportAttainments, ainoImport())
			wantCode(t, got, "sisuTimeout")
			id := str(got.Result, "submittedAttainmentId")
			if got.Status != "error" || got.Error.Message != "Sisu operation timed out; outcome is uncertain." || id == "" {
				t.Fatalf("sisuTimeout item = %+v, want an error item naming the submission", got)
			}
			if sub, ok := b.fake.World().Submission(id); !ok || sub.SendState != suotarfake.SendAttempted {
				t.Errorf("submission = %+v, want ATTEMPTED", sub)
			}
			wantCode(t, b.verify(t, id), "submissionPending")
			b.advance(t, time.Hour)
			wantCode(t, b.verify(t, id), tc.afterLag)
			b.advance(t, 24*time.Hour)
			wantCode(t, b.verify(t, id), tc.late)
		})
	}
}
