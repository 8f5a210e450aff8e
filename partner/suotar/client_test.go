package suotar_test

import (
	"errors"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
)

const token = "suotar_client-test-token"

// t0 is the fake's "now": 2026-12-01 12:00 in Helsinki.
var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

const (
	aino   = "014979622" // enrolled on TKT10002, with an earlier grade 3
	bertil = "015448314" // not enrolled, but holds an attainment on TKT10002
	carla  = "010000003" // enrolled; the fixture's forced-code target
	nobody = "019999999"
	basics = "TKT10002"

	ainoEnrolment = "otm-3f6c1b0e-7d2a-4b8e-9c11-5a0d2e4f6a10"
	cuID          = "hy-CU-137765567-2020-08-01"
)

// world is the client tests' Sisu, built the way another package would build a world file.
func world() *suotarfake.World {
	w := suotarfake.NewWorld().
		AddPerson(suotarfake.Person{StudentNumber: aino, PersonID: "hy-hlo-125563414", FirstNames: "Aino Maria", LastName: "Virtanen"}).
		AddPerson(suotarfake.Person{StudentNumber: bertil, PersonID: "hy-hlo-2"}).
		AddPerson(suotarfake.Person{StudentNumber: carla, PersonID: "hy-hlo-3", FirstNames: "Carla", LastName: "Coelho"}).
		AddCourseUnit(suotarfake.CourseUnit{Code: basics, ID: cuID, Credits: &suotarfake.Credits{Min: 5, Max: 5}, GradeScaleID: "sis-0-5",
			Realisations: []suotarfake.Realisation{{ID: "otm-r1", Name: suotarfake.Text{FI: "Ohjelmoinnin perusteet, syksy 2026"},
				ActivityPeriod: suotarfake.Period{StartDate: "2026-09-01", EndDate: "2026-12-20"}, AssessmentItemID: "otm-ai1", Teachers: []string{"hy-hlo-9"}}}}).
		Allow(basics, "Ohjelmoinnin perusteet").
		AddEnrolment(suotarfake.Enrolment{ID: ainoEnrolment, PersonID: "hy-hlo-125563414", CourseUnitRealisationID: "otm-r1",
			StudyRightID: "otm-sr1", StudyRightValidityPeriod: &suotarfake.Period{StartDate: "2024-08-01", EndDate: "2030-08-01"},
			EnrolmentDateTime: suotarfake.DateTime{Time: time.Date(2026, 9, 2, 8, 15, 0, 0, time.UTC)}}).
		AddEnrolment(suotarfake.Enrolment{PersonID: "hy-hlo-3", CourseUnitRealisationID: "otm-r1", StudyRightID: "otm-sr3"})
	attainment := func(id, typ, person, grade, date string, misregistered bool, aiIDs ...string) suotarfake.Attainment {
		return suotarfake.Attainment{ID: id, Type: typ, PersonID: person, CourseUnitID: cuID, AttainmentDate: date, RegistrationDate: date,
			State: suotarfake.StateAttained, GradeScaleID: "sis-0-5", GradeID: grade, Credits: 5, Misregistration: misregistered, AssessmentItemAttainmentIDs: aiIDs}
	}
	submission := func(id, state string) suotarfake.Submission {
		return suotarfake.Submission{ID: id, StudentNumber: aino, PersonID: "hy-hlo-125563414", CourseCode: basics, AttainmentDate: "2026-11-30",
			GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5, SendState: state, CreatedAt: suotarfake.DateTime{Time: t0.Add(-2 * time.Hour)}, Manual: true}
	}
	return w.
		AddAttainment(attainment("otm-aino-earlier", suotarfake.TypeCourseUnit, "hy-hlo-125563414", "3", "2025-05-02", false)).
		AddAttainment(attainment("otm-bertil", suotarfake.TypeCourseUnit, "hy-hlo-2", "2", "2025-12-18", false)).
		AddAttainment(attainment("otm-carla", suotarfake.TypeCourseUnit, "hy-hlo-3", "1", "2025-01-10", false)).
		AddSubmission(submission("hy-kur-final", suotarfake.SendAccepted)).
		AddAttainment(attainment("hy-kur-final", suotarfake.TypeAssessmentItem, "hy-hlo-125563414", "4", "2026-11-30", false)).
		AddAttainment(attainment("otm-final-cu", suotarfake.TypeCourseUnit, "hy-hlo-125563414", "4", "2026-11-30", false, "hy-kur-final")).
		AddSubmission(submission("hy-kur-partial", suotarfake.SendAccepted)).
		AddAttainment(attainment("hy-kur-partial", suotarfake.TypeAssessmentItem, "hy-hlo-125563414", "4", "2026-11-29", false)).
		AddSubmission(submission("hy-kur-pending", suotarfake.SendAccepted)).
		AddSubmission(submission("hy-kur-reversed", suotarfake.SendAccepted)).
		AddAttainment(attainment("hy-kur-reversed", suotarfake.TypeAssessmentItem, "hy-hlo-125563414", "4", "2026-11-28", true))
}

type bundle struct {
	fake   *suotarfake.Server
	client *suotar.Client
	url    string
}

// setup starts the fake over real HTTP and a client pointed at it.
func setup(t *testing.T, cfg suotar.Config, opts ...suotarfake.Option) *bundle {
	t.Helper()
	opts = append([]suotarfake.Option{suotarfake.WithWorld(world()), suotarfake.WithClock(suotarfake.NewClock(t0, 0))}, opts...)
	fake, err := suotarfake.New(token, opts...)
	if err != nil {
		t.Fatalf("suotarfake.New: %v", err)
	}
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	t.Cleanup(fake.Close)
	if cfg.BaseURL == "" {
		cfg.BaseURL = ts.URL + "/api/"
	} else {
		cfg.BaseURL = strings.Replace(cfg.BaseURL, "{fake}", ts.URL, 1)
	}
	if cfg.Token == "" {
		cfg.Token = token
	}
	client, err := suotar.New(cfg)
	if err != nil {
		t.Fatalf("suotar.New: %v", err)
	}
	return &bundle{fake: fake, client: client, url: ts.URL}
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestResolvePersons(t *testing.T) {
	t.Parallel()

	b := setup(t, suotar.Config{})
	ctx := t.Context()
	first, err := b.client.ResolvePersons(ctx, []string{aino, nobody})
	if err != nil {
		t.Fatalf("ResolvePersons: %v", err)
	}
	second, err := b.client.ResolvePersons(ctx, []string{aino, nobody})
	if err != nil {
		t.Fatalf("ResolvePersons again: %v", err)
	}

	found, missing := first.Items[0], first.Items[1]
	if !found.OK() || found.Code != suotar.CodePersonFound || found.Person == nil ||
		*found.Person != (suotar.Person{StudentNumber: aino, PersonID: "hy-hlo-125563414", FirstNames: "Aino Maria", LastName: "Virtanen"}) {
		t.Errorf("Aino = %+v, want personFound with her names", found)
	}
	if missing.OK() || missing.Status != suotar.StatusError || missing.Code != suotar.CodePersonNotFound || missing.Person != nil ||
		missing.Message != "No Sisu person was found for the supplied student number." || missing.StudentNumber != nobody {
		t.Errorf("nobody = %+v, want personNotFound", missing)
	}

	// What went over the wire: a fresh v4 id per item per call, and a correlation id per call that
	// the caller gets back.
	calls := b.fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("fake saw %d calls, want 2", len(calls))
	}
	seen := map[string]bool{}
	for i, batch := range []suotar.Batch[suotar.PersonAnswer]{first, second} {
		c := calls[i]
		if c.CorrelationID != batch.CorrelationID || !uuidV4.MatchString(c.CorrelationID) || c.ContentType != "application/json" {
			t.Errorf("call %d: correlation %q (batch %q), content type %q", i, c.CorrelationID, batch.CorrelationID, c.ContentType)
		}
		for j, a := range batch.Items {
			if !uuidV4.MatchString(a.RequestItemID) || seen[a.RequestItemID] || !strings.Contains(string(c.Items[j]), a.RequestItemID) {
				t.Errorf("call %d item %d: requestItemId %q not a fresh v4 UUID sent in that call", i, j, a.RequestItemID)
			}
			seen[a.RequestItemID] = true
		}
	}
	if first.CorrelationID == second.CorrelationID {
		t.Error("two calls shared a correlation id")
	}
}

func TestResolveEnrolmentsEveryCode(t *testing.T) {
	t.Parallel()

	b := setup(t, suotar.Config{},
		suotarfake.WithFaults(
			suotarfake.Fault{Effect: suotarfake.FaultItemCode, Code: "enrolmentNotAccepted", Match: carla},
			suotarfake.Fault{Effect: suotarfake.FaultUnknownCode, Code: "brandNewCode", Match: "TKT99999"},
		))
	queries := []suotar.EnrolmentQuery{
		{StudentNumber: aino, CourseCode: basics},
		{StudentNumber: nobody, CourseCode: basics},
		{StudentNumber: aino, CourseCode: "AYTKT21018"},
		{StudentNumber: bertil, CourseCode: basics},
		{StudentNumber: carla, CourseCode: basics},
		{StudentNumber: aino, CourseCode: "TKT99999"},
	}
	got, err := b.client.ResolveEnrolments(t.Context(), queries)
	if err != nil {
		t.Fatalf("ResolveEnrolments: %v", err)
	}
	tests := []struct {
		code                    suotar.Code
		raw                     string
		enrolments, attainments int
	}{
		{code: suotar.CodeEnrolmentFound, raw: "enrolmentFound", enrolments: 1, attainments: 4}, // not the misregistered one
		{code: suotar.CodePersonNotFound, raw: "personNotFound"},
		{code: suotar.CodeCourseCodeNotFound, raw: "courseCodeNotFound"},
		{code: suotar.CodeEnrolmentNotFound, raw: "enrolmentNotFound", attainments: 1},
		{code: suotar.CodeEnrolmentNotAccepted, raw: "enrolmentNotAccepted", attainments: 1},
		{code: suotar.CodeUnknown, raw: "brandNewCode"},
	}
	for i, tc := range tests {
		a := got.Items[i]
		if a.Query != queries[i] || a.Code != tc.code || a.RawCode != tc.raw || len(a.Enrolments) != tc.enrolments || len(a.ExistingAttainments) != tc.attainments {
			t.Errorf("item %d = %s/%s with %d enrolments and %d attainments, want %s/%s with %d and %d",
				i, a.Code, a.RawCode, len(a.Enrolments), len(a.ExistingAttainments), tc.code, tc.raw, tc.enrolments, tc.attainments)
		}
	}

	e := got.Items[0].Enrolments[0]
	if e.ID != ainoEnrolment || e.State != "ENROLLED" || e.Kind != "degree" || e.CourseUnitID != cuID || e.AssessmentItemID != "otm-ai1" ||
		e.CourseUnitRealisationID != "otm-r1" || e.CourseUnitRealisationName.FI != "Ohjelmoinnin perusteet, syksy 2026" || e.GradeScaleID != "sis-0-5" ||
		e.StudyRightID != "otm-sr1" || e.ActivityPeriod == nil || e.ActivityPeriod.End.String() != "2026-12-20" ||
		e.StudyRightValidityPeriod == nil || e.StudyRightValidityPeriod.Start.String() != "2024-08-01" ||
		!e.EnrolmentDateTime.Equal(time.Date(2026, 9, 2, 8, 15, 0, 0, time.UTC)) {
		t.Errorf("enrolment = %+v", e)
	}
	if e.Credits == nil || e.Credits.Min == nil || *e.Credits.Min != 5 || *e.Credits.Max != 5 {
		t.Errorf("enrolment credits = %+v, want 5..5", e.Credits)
	}
	earlier := got.Items[0].ExistingAttainments[0]
	if earlier.ID != "otm-aino-earlier" || earlier.Type != suotar.TypeCourseUnitAttainment || earlier.GradeID != "3" ||
		earlier.AttainmentDate.String() != "2025-05-02" || earlier.Passed == nil || !*earlier.Passed || earlier.PersonID != "hy-hlo-125563414" {
		t.Errorf("existing attainment = %+v", earlier)
	}
	if a := got.Items[3].ExistingAttainments[0]; a.ID != "otm-bertil" || a.GradeID != "2" {
		t.Errorf("enrolmentNotFound's attainment = %+v, want Bertil's", a)
	}
}

func TestVerifyAttainmentsEveryCode(t *testing.T) {
	t.Parallel()

	// Older Suotar versions answered an unreachable Sisu per item on verify.
	b := setup(t, suotar.Config{}, suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultItemCode, Code: "sisuTemporarilyUnavailable", Match: "hy-kur-legacy"}))
	ids := []string{"hy-kur-final", "hy-kur-partial", "hy-kur-pending", "hy-kur-lost", "hy-kur-reversed", "hy-kur-legacy"}
	got, err := b.client.VerifyAttainments(t.Context(), ids)
	if err != nil {
		t.Fatalf("VerifyAttainments: %v", err)
	}
	want := []struct {
		code       suotar.Code
		attainment *suotar.AttainmentRef
	}{
		{suotar.CodeRegistered, &suotar.AttainmentRef{ID: "otm-final-cu", Type: suotar.TypeCourseUnitAttainment}},
		{suotar.CodeRegistered, &suotar.AttainmentRef{ID: "hy-kur-partial", Type: suotar.TypeAssessmentItemAttainment}},
		{suotar.CodeSubmissionPending, nil},
		{suotar.CodeNotRegistered, nil},
		{suotar.CodeMisregistered, nil},
		{suotar.CodeSisuTemporarilyUnavailable, nil},
	}
	for i, w := range want {
		a := got.Items[i]
		if a.SubmittedAttainmentID != ids[i] || a.Code != w.code || (a.Attainment == nil) != (w.attainment == nil) ||
			w.attainment != nil && *a.Attainment != *w.attainment {
			t.Errorf("%s = %s %+v, want %s %+v", ids[i], a.Code, a.Attainment, w.code, w.attainment)
		}
	}
	pending := got.Items[2]
	if !pending.RetryAfter.Equal(t0.Add(24*time.Hour)) || pending.Submission == nil ||
		*pending.Submission != (suotar.AttainmentRef{ID: "hy-kur-pending", Type: suotar.TypeAssessmentItemAttainment}) {
		t.Errorf("pending = %+v, want retryAfter %s naming the submission", pending, t0.Add(24*time.Hour))
	}
	if m := got.Items[4].Message; m != "A previously registered attainment has been marked misregistered in Sisu." {
		t.Errorf("misregistered message = %q", m)
	}
}

func TestAttainments(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		studentNumber string
		fault         *suotarfake.Fault
		code          suotar.Code
		attainments   int
		kind          suotar.Kind
	}{
		{name: "Enrolled", studentNumber: aino, code: suotar.CodeEnrolmentFound, attainments: 4},
		{name: "NotEnrolledButAttained", studentNumber: bertil, code: suotar.CodeEnrolmentNotFound, attainments: 1},
		{name: "NoSuchPerson", studentNumber: nobody, code: suotar.CodePersonNotFound},
		{name: "LeftOut", studentNumber: aino, fault: &suotarfake.Fault{Effect: suotarfake.FaultDropItems}, kind: suotar.KindBadAnswer},
		{name: "Unreadable", studentNumber: aino, fault: &suotarfake.Fault{Effect: suotarfake.FaultCorruptItems}, kind: suotar.KindBadAnswer},
		{name: "Unavailable", studentNumber: aino, fault: &suotarfake.Fault{Effect: suotarfake.FaultUnavailable}, kind: suotar.KindUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var opts []suotarfake.Option
			if tc.fault != nil {
				opts = append(opts, suotarfake.WithFaults(*tc.fault))
			}
			b := setup(t, suotar.Config{}, opts...)
			got, err := b.client.Attainments(t.Context(), tc.studentNumber, basics)
			if got.CorrelationID == "" || got.CorrelationID != b.fake.Calls()[0].CorrelationID {
				t.Errorf("correlation id %q, want the one sent", got.CorrelationID)
			}
			if tc.kind != "" {
				e, ok := errors.AsType[*suotar.Error](err)
				if !ok || e.Kind != tc.kind {
					t.Fatalf("err = %v, want kind %s", err, tc.kind)
				}
				return
			}
			if err != nil || got.Code != tc.code || len(got.Attainments) != tc.attainments {
				t.Errorf("= %s with %d attainments, %v; want %s with %d", got.Code, len(got.Attainments), err, tc.code, tc.attainments)
			}
		})
	}
}
