package suotarfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

const token = "suotar_test-token"

// t0 is the fixture's "now": 2026-12-01 12:00 in Helsinki.
var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// Fixture people, courses and ids.
const (
	aino   = "014979622" // enrolled on everything, has an earlier grade 3 on TKT10002
	bertil = "015448314" // no ENROLLED enrolment, but an attainment on TKT10002
	carla  = "010000003" // open university, on a realisation with no teachers
	nobody = "019999999"

	ainoPerson   = "hy-hlo-125563414"
	bertilPerson = "hy-hlo-200000002"
	carlaPerson  = "hy-hlo-300000003"

	basics     = "TKT10002" // sis-0-5, 5 credits, allowed
	passFail   = "TKT20001" // sis-hyl-hyv, 1–2 credits, allowed; Aino's enrolment has no study right
	noCredits  = "TKT30000" // allowed, no credit range
	notAllowed = "TKT21018" // in Sisu, not on the allow-list
	onlyListed = "AYTKT21018"

	basicsRealisation  = "otm-5680ea93-6e5f-4913-a219-5e668cc884c3"
	noTeacherRealis    = "otm-0000000a-0000-4000-8000-000000000002"
	ainoBasics         = "otm-3f6c1b0e-7d2a-4b8e-9c11-5a0d2e4f6a10"
	carlaBasics        = "otm-3f6c1b0e-7d2a-4b8e-9c11-5a0d2e4f6a11"
	ainoEarlierBasics  = "otm-1a2b3c4d-0000-4000-8000-00000000a001"
	bertilEarlierBasic = "otm-1a2b3c4d-0000-4000-8000-00000000a002"
)

func fixtureWorld() *suotarfake.World {
	w := suotarfake.NewWorld().
		AddPerson(suotarfake.Person{StudentNumber: aino, PersonID: ainoPerson, FirstNames: "Aino Maria", LastName: "Virtanen", PrimaryEmail: "aino.virtanen@helsinki.example"}).
		AddPerson(suotarfake.Person{StudentNumber: bertil, PersonID: bertilPerson, FirstNames: "Bertil", LastName: "Berg"}).
		AddPerson(suotarfake.Person{StudentNumber: carla, PersonID: carlaPerson, FirstNames: "Carla", LastName: "Coelho"}).
		AddCourseUnit(suotarfake.CourseUnit{Code: basics, ID: "hy-CU-137765567-2020-08-01", GroupID: "hy-CU-137765567",
			Name: suotarfake.Text{FI: "Ohjelmoinnin perusteet"}, Credits: &suotarfake.Credits{Min: 5, Max: 5}, GradeScaleID: "sis-0-5",
			Realisations: []suotarfake.Realisation{
				{ID: basicsRealisation, Name: suotarfake.Text{FI: "Ohjelmoinnin perusteet, syksy 2026", EN: "Introduction to Programming, autumn 2026"},
					ActivityPeriod: suotarfake.Period{StartDate: "2026-09-01", EndDate: "2026-12-20"}, AssessmentItemID: "otm-9b1e2c3d-4f50-4a61-8b72-93a4b5c6d7e8",
					Teachers: []string{"hy-hlo-131122009"}},
				{ID: noTeacherRealis, ActivityPeriod: suotarfake.Period{StartDate: "2026-09-01"}},
			}}).
		AddCourseUnit(suotarfake.CourseUnit{Code: passFail, Credits: &suotarfake.Credits{Min: 1, Max: 2}, GradeScaleID: "sis-hyl-hyv",
			Realisations: []suotarfake.Realisation{{ActivityPeriod: suotarfake.Period{StartDate: "2026-01-01"}, Teachers: []string{"hy-hlo-131122009"}}}}).
		AddCourseUnit(suotarfake.CourseUnit{Code: noCredits, GradeScaleID: "sis-0-5",
			Realisations: []suotarfake.Realisation{{Teachers: []string{"hy-hlo-131122009"}}}}).
		AddCourseUnit(suotarfake.CourseUnit{Code: notAllowed, Credits: &suotarfake.Credits{Min: 5, Max: 5}, GradeScaleID: "sis-0-5",
			Realisations: []suotarfake.Realisation{{Teachers: []string{"hy-hlo-131122009"}}}}).
		Allow(basics, "Ohjelmoinnin perusteet").Allow(passFail, "Tietokoneen toiminta").Allow(noCredits, "Ei opintopisteitä").Allow(onlyListed, "Avoimen kurssi")
	passFailCU, _ := w.CourseUnit(passFail)
	noCreditsCU, _ := w.CourseUnit(noCredits)
	notAllowedCU, _ := w.CourseUnit(notAllowed)
	studyRight := &suotarfake.Period{StartDate: "2024-08-01", EndDate: "2030-08-01"}
	w.AddEnrolment(suotarfake.Enrolment{ID: ainoBasics, PersonID: ainoPerson, CourseUnitRealisationID: basicsRealisation,
		StudyRightID: "otm-0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", StudyRightValidityPeriod: studyRight,
		EnrolmentDateTime: suotarfake.DateTime{Time: time.Date(2026, 9, 2, 8, 15, 0, 0, time.UTC)}}).
		AddEnrolment(suotarfake.Enrolment{PersonID: ainoPerson, CourseUnitRealisationID: passFailCU.Realisations[0].ID}).
		AddEnrolment(suotarfake.Enrolment{PersonID: ainoPerson, CourseUnitRealisationID: noCreditsCU.Realisations[0].ID, StudyRightID: "sr-1"}).
		AddEnrolment(suotarfake.Enrolment{PersonID: ainoPerson, CourseUnitRealisationID: notAllowedCU.Realisations[0].ID, StudyRightID: "sr-1"}).
		AddEnrolment(suotarfake.Enrolment{PersonID: bertilPerson, CourseUnitRealisationID: basicsRealisation, State: "REJECTED"}).
		AddEnrolment(suotarfake.Enrolment{ID: carlaBasics, PersonID: carlaPerson, CourseUnitRealisationID: noTeacherRealis, StudyRightID: "hy-avoin-ew-sr-C4C04"}).
		AddAttainment(suotarfake.Attainment{ID: ainoEarlierBasics, Type: suotarfake.TypeCourseUnit, PersonID: ainoPerson,
			CourseUnitID: "hy-CU-137765567-2020-08-01", AttainmentDate: "2025-05-02", RegistrationDate: "2025-05-04",
			State: suotarfake.StateAttained, GradeScaleID: "sis-0-5", GradeID: "3", Credits: 5}).
		AddAttainment(suotarfake.Attainment{ID: bertilEarlierBasic, Type: suotarfake.TypeCourseUnit, PersonID: bertilPerson,
			CourseUnitID: "hy-CU-137765567-2020-08-01", AttainmentDate: "2025-12-18", RegistrationDate: "2025-12-20",
			State: suotarfake.StateAttained, GradeScaleID: "sis-0-5", GradeID: "2", Credits: 5})
	return w
}

// bundle is one test's fake, served over real HTTP.
type bundle struct {
	fake *suotarfake.Server
	url  string
}

func setup(t *testing.T, opts ...suotarfake.Option) *bundle {
	t.Helper()
	opts = append([]suotarfake.Option{
		suotarfake.WithWorld(fixtureWorld()),
		suotarfake.WithClock(suotarfake.NewClock(t0, 0)),
	}, opts...)
	fake, err := suotarfake.New(token, opts...)
	if err != nil {
		t.Fatalf("suotarfake.New: %v", err)
	}
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	t.Cleanup(fake.Close) // runs first: ends hanging calls so ts.Close does not wait for them
	return &bundle{fake: fake, url: ts.URL}
}

// do sends body (a string is sent as is, anything else as JSON) with the test token.
func (b *bundle) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	return b.doWith(t, method, path, body, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
}

func (b *bundle) doWith(t *testing.T, method, path string, body any, headers map[string]string) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(v)
	case []byte:
		r = bytes.NewReader(v)
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		r = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, b.url+path, r)
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, path, err)
	}
	return resp.StatusCode, out
}

// item is an answer item as a test reads it.
type item struct {
	RequestItemID string         `json:"requestItemId"`
	Status        string         `json:"status"`
	Code          string         `json:"code"`
	Result        map[string]any `json:"result"`
	Error         *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// batch posts items to an endpoint, numbering their requestItemIds, and wants a 200.
func (b *bundle) batch(t *testing.T, endpoint string, items ...map[string]any) []item {
	t.Helper()
	for i, it := range items {
		if _, ok := it["requestItemId"]; !ok {
			it["requestItemId"] = "i-" + string(rune('a'+i))
		}
	}
	status, body := b.do(t, "POST", "/api/"+endpoint, items)
	if status != http.StatusOK {
		t.Fatalf("POST %s = %d %s, want 200", endpoint, status, body)
	}
	var out []item
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("answer of %s: %v: %s", endpoint, err, body)
	}
	if len(out) != len(items) {
		t.Fatalf("POST %s answered %d items, want %d", endpoint, len(out), len(items))
	}
	return out
}

// one posts a single item and returns its answer.
func (b *bundle) one(t *testing.T, endpoint string, it map[string]any) item {
	t.Helper()
	return b.batch(t, endpoint, it)[0]
}

func importItem(studentNumber, code, enrolmentID, date, scale, grade string, credits float64) map[string]any {
	return map[string]any{"studentNumber": studentNumber, "courseCode": code, "enrolmentId": enrolmentID,
		"attainmentDate": date, "attainmentLanguage": "fi", "gradeScaleId": scale, "gradeId": grade, "credits": credits}
}

// ainoImport is the import every lifecycle test starts from: grade 4, which beats her earlier 3.
func ainoImport() map[string]any {
	return importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "4", 5)
}

func (b *bundle) verify(t *testing.T, id string) item {
	t.Helper()
	return b.one(t, suotarfake.PathVerifyAttainments, map[string]any{"submittedAttainmentId": id})
}

func (b *bundle) advance(t *testing.T, d time.Duration) {
	t.Helper()
	b.fake.Clock().Advance(d)
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		next, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = next[p]
	}
	s, _ := cur.(string)
	return s
}

func wantCode(t *testing.T, got item, want string) {
	t.Helper()
	if got.Code != want {
		msg := ""
		if got.Error != nil {
			msg = got.Error.Message
		}
		t.Fatalf("code = %s (%s), want %s", got.Code, msg, want)
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
