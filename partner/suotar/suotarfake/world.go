package suotarfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// World is everything the fake Suotar knows: Sisu's people, course units, enrolments and
// attainments, Suotar's own course allow-list, and the submissions Suotar has made. It is plain
// data, written to and read from JSON, so a world file can be built by any package (with the Add…
// methods) and handed to `regdesk fakesuotar --world FILE`.
//
// Dates are "YYYY-MM-DD" strings, as Sisu writes them; instants are RFC 3339; durations are Go
// duration strings ("29h").
type World struct {
	Persons     []Person        `json:"persons,omitempty"`
	CourseUnits []CourseUnit    `json:"courseUnits,omitempty"`
	AllowList   []AllowedCourse `json:"allowList,omitempty"`
	Enrolments  []Enrolment     `json:"enrolments,omitempty"`
	Attainments []Attainment    `json:"attainments,omitempty"`
	Submissions []Submission    `json:"submissions,omitempty"`
}

// Person is a Sisu person with a student number.
type Person struct {
	StudentNumber  string `json:"studentNumber"`
	PersonID       string `json:"personId"`
	FirstNames     string `json:"firstNames,omitempty"`
	LastName       string `json:"lastName,omitempty"`
	PrimaryEmail   string `json:"primaryEmail,omitempty"`
	SecondaryEmail string `json:"secondaryEmail,omitempty"`
}

// Text is a name in Finnish, Swedish and English.
type Text struct {
	FI string `json:"fi,omitempty"`
	SV string `json:"sv,omitempty"`
	EN string `json:"en,omitempty"`
}

// Period is a Sisu LocalDateRange: StartDate inclusive, EndDate exclusive, either may be empty
// (open).
type Period struct {
	StartDate string `json:"startDate,omitempty"`
	EndDate   string `json:"endDate,omitempty"`
}

// Credits is a course unit's credit range.
type Credits struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// CourseUnit is a Sisu course unit, found by its code, with its realisations.
type CourseUnit struct {
	Code    string `json:"code"`
	ID      string `json:"id"`
	GroupID string `json:"groupId"`
	Name    Text   `json:"name"`
	// Credits is nil for a course unit without a credit range, which import refuses with
	// invalidCredits.
	Credits      *Credits      `json:"credits,omitempty"`
	GradeScaleID string        `json:"gradeScaleId"`
	Realisations []Realisation `json:"realisations,omitempty"`
}

// Realisation is a course unit realisation (an implementation of the course) with its assessment
// item.
type Realisation struct {
	ID               string `json:"id"`
	Name             Text   `json:"name"`
	ActivityPeriod   Period `json:"activityPeriod"`
	AssessmentItemID string `json:"assessmentItemId"`
	// GradeScaleID is the assessment item's scale; empty means the course unit's.
	GradeScaleID string `json:"gradeScaleId,omitempty"`
	// Teachers are the person ids who accept attainments; Sisu refuses an attainment with none.
	Teachers []string `json:"teachers,omitempty"`
}

// AllowedCourse is an entry of Suotar's own hand-kept course list. It is separate from Sisu's
// course units, so a code can be known to Sisu and still refused by Suotar, and the reverse.
type AllowedCourse struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// Enrolment states and kinds.
const (
	StateEnrolled = "ENROLLED"
	KindDegree    = "degree"
	KindOpenUni   = "openUniversity"
)

// Enrolment is a person's enrolment on a realisation.
type Enrolment struct {
	ID                      string `json:"id"`
	PersonID                string `json:"personId"`
	CourseUnitRealisationID string `json:"courseUnitRealisationId"`
	// State is ENROLLED for every enrolment Suotar can see; others exist in Sisu but never reach
	// Suotar's importer copy.
	State string `json:"state"`
	// Kind is degree or openUniversity; when empty Suotar derives it: openUniversity when the
	// study right id contains "avoin".
	Kind         string `json:"kind,omitempty"`
	StudyRightID string `json:"studyRightId,omitempty"`
	// StudyRightValidityPeriod is nil when the study right has no known validity: any date fits.
	StudyRightValidityPeriod *Period  `json:"studyRightValidityPeriod,omitempty"`
	EnrolmentDateTime        DateTime `json:"enrolmentDateTime,omitzero"`
}

// Attainment types and states.
const (
	TypeCourseUnit     = "CourseUnitAttainment"
	TypeAssessmentItem = "AssessmentItemAttainment"
	StateAttained      = "ATTAINED"
	StateFailed        = "FAILED"
)

// Attainment is an attainment in Sisu: an AssessmentItemAttainment (what Suotar submits) or the
// CourseUnitAttainment Sisu later builds from it.
type Attainment struct {
	ID                      string  `json:"id"`
	Type                    string  `json:"type"`
	PersonID                string  `json:"personId"`
	CourseUnitID            string  `json:"courseUnitId"`
	CourseUnitGroupID       string  `json:"courseUnitGroupId,omitempty"`
	AssessmentItemID        string  `json:"assessmentItemId,omitempty"`
	CourseUnitRealisationID string  `json:"courseUnitRealisationId,omitempty"`
	AttainmentDate          string  `json:"attainmentDate"`
	RegistrationDate        string  `json:"registrationDate,omitempty"`
	State                   string  `json:"state"`
	GradeScaleID            string  `json:"gradeScaleId"`
	GradeID                 string  `json:"gradeId"`
	Credits                 float64 `json:"credits"`
	AttainmentLanguage      string  `json:"attainmentLanguage,omitempty"`
	StudyRightID            string  `json:"studyRightId,omitempty"`
	Misregistration         bool    `json:"misregistration,omitempty"`
	// AssessmentItemAttainmentIDs, on a CourseUnitAttainment, names the attainments it was built
	// from: this is how verify finds the course unit attainment of a submitted hy-kur id.
	AssessmentItemAttainmentIDs []string `json:"assessmentItemAttainmentIds,omitempty"`
	// VisibleAt is when Suotar's importer copy first shows the attainment; zero means always.
	VisibleAt DateTime `json:"visibleAt,omitzero"`
}

// Send states of a submission, as Suotar records its send to Sisu.
const (
	SendNotSent   = "NOT_SENT"
	SendAttempted = "ATTEMPTED"
	SendAccepted  = "ACCEPTED"
	SendRejected  = "REJECTED"
)

// Submission is an entry Suotar sent (or tried to send) to Sisu, named by the hy-kur id it
// chose. It carries the whole attainment, so a control transition can make Sisu hold it.
type Submission struct {
	ID                      string `json:"id"`
	RequestItemID           string `json:"requestItemId,omitempty"`
	StudentNumber           string `json:"studentNumber"`
	PersonID                string `json:"personId"`
	CourseCode              string `json:"courseCode"`
	EnrolmentID             string `json:"enrolmentId,omitempty"`
	CourseUnitID            string `json:"courseUnitId,omitempty"`
	CourseUnitGroupID       string `json:"courseUnitGroupId,omitempty"`
	AssessmentItemID        string `json:"assessmentItemId,omitempty"`
	CourseUnitRealisationID string `json:"courseUnitRealisationId,omitempty"`
	// AttainmentDate is the date the client sent; SisuAttainmentDate the date Suotar sent to Sisu
	// after moving it into the study right (empty: the same).
	AttainmentDate     string   `json:"attainmentDate"`
	SisuAttainmentDate string   `json:"sisuAttainmentDate,omitempty"`
	AttainmentLanguage string   `json:"attainmentLanguage,omitempty"`
	StudyRightID       string   `json:"studyRightId,omitempty"`
	GradeScaleID       string   `json:"gradeScaleId"`
	GradeID            string   `json:"gradeId"`
	Credits            float64  `json:"credits"`
	SendState          string   `json:"sendState"`
	CreatedAt          DateTime `json:"createdAt"`
	// CUDelay is how long after CreatedAt the course unit attainment shows in the importer copy.
	// Import writes the delay it drew; when absent the fake derives one from the id.
	CUDelay *Duration `json:"cuDelay,omitempty"`
	// Manual stops the course unit attainment from appearing by itself; only the control API
	// (ripen, transition) makes it.
	Manual bool `json:"manual,omitempty"`
	// Lost marks a submission Sisu and Suotar have lost track of: verify answers notRegistered.
	Lost bool `json:"lost,omitempty"`
}

// DateTime is an instant written as RFC 3339.
type DateTime struct{ time.Time }

// MarshalJSON writes RFC 3339 in UTC.
func (t DateTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format(time.RFC3339Nano))
}

// UnmarshalJSON reads RFC 3339.
func (t *DateTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("instant: %w", err)
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("instant: %w", err)
	}
	*t = DateTime{parsed}
	return nil
}

// Duration is a time.Duration written as a Go duration string ("5h30m0s").
type Duration time.Duration

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(parsed)
	return nil
}

// NewWorld returns an empty world: every student is personNotFound, every course code refused.
func NewWorld() *World { return &World{} }

// LoadWorld reads and checks a world file.
func LoadWorld(path string) (*World, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("LoadWorld: %w", err)
	}
	var w World
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("LoadWorld %s: %w", path, err)
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("LoadWorld %s: %w", path, err)
	}
	return &w, nil
}

// Save checks the world and writes it to path as indented JSON.
func (w *World) Save(path string) error {
	if err := w.Validate(); err != nil {
		return fmt.Errorf("World.Save: %w", err)
	}
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return fmt.Errorf("World.Save: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("World.Save: %w", err)
	}
	return nil
}

// AddPerson adds a person; an empty PersonID is derived from the student number.
func (w *World) AddPerson(p Person) *World {
	if p.PersonID == "" {
		p.PersonID = "hy-hlo-" + deriveDigits(9, "person", p.StudentNumber)
	}
	w.Persons = append(w.Persons, p)
	return w
}

// AddCourseUnit adds a course unit. Empty ids (of the unit, its group, its realisations and
// their assessment items) are derived from the code, so tests can predict them.
func (w *World) AddCourseUnit(cu CourseUnit) *World {
	digits := deriveDigits(9, "course-unit", cu.Code)
	if cu.GroupID == "" {
		cu.GroupID = "hy-CU-" + digits
	}
	if cu.ID == "" {
		cu.ID = cu.GroupID + "-2020-08-01"
	}
	cu.Realisations = append([]Realisation(nil), cu.Realisations...)
	for i := range cu.Realisations {
		r := &cu.Realisations[i]
		if r.ID == "" {
			r.ID = "otm-" + DeriveUUID("realisation", cu.Code, strconv.Itoa(i))
		}
		if r.AssessmentItemID == "" {
			r.AssessmentItemID = "otm-" + DeriveUUID("assessment-item", cu.Code, strconv.Itoa(i))
		}
	}
	w.CourseUnits = append(w.CourseUnits, cu)
	return w
}

// Allow puts a course code on Suotar's allow-list.
func (w *World) Allow(code, name string) *World {
	w.AllowList = append(w.AllowList, AllowedCourse{Code: code, Name: name})
	return w
}

// AddEnrolment adds an enrolment; an empty ID is derived from the person and realisation, and an
// empty State is ENROLLED.
func (w *World) AddEnrolment(e Enrolment) *World {
	if e.ID == "" {
		e.ID = "otm-" + DeriveUUID("enrolment", e.PersonID, e.CourseUnitRealisationID)
	}
	if e.State == "" {
		e.State = StateEnrolled
	}
	w.Enrolments = append(w.Enrolments, e)
	return w
}

// AddAttainment adds an attainment already in Sisu; an empty ID is derived from its content.
func (w *World) AddAttainment(a Attainment) *World {
	if a.ID == "" {
		a.ID = "otm-" + DeriveUUID("attainment", a.PersonID, a.CourseUnitID, a.Type, a.AttainmentDate, a.GradeID)
	}
	w.Attainments = append(w.Attainments, a)
	return w
}

// AddSubmission adds a submission Suotar has already made.
func (w *World) AddSubmission(s Submission) *World {
	w.Submissions = append(w.Submissions, s)
	return w
}

// Person returns the person with the student number.
func (w *World) Person(studentNumber string) (Person, bool) {
	for _, p := range w.Persons {
		if p.StudentNumber == studentNumber {
			return p, true
		}
	}
	return Person{}, false
}

// CourseUnit returns the course unit with the code.
func (w *World) CourseUnit(code string) (CourseUnit, bool) {
	for _, cu := range w.CourseUnits {
		if cu.Code == code {
			return cu, true
		}
	}
	return CourseUnit{}, false
}

// Submission returns the submission with the id.
func (w *World) Submission(id string) (Submission, bool) {
	for _, s := range w.Submissions {
		if s.ID == id {
			return s, true
		}
	}
	return Submission{}, false
}

// Validate reports every inconsistency that would make the fake answer nonsense: missing or
// repeated ids, references to nothing, unreadable dates, unknown states.
func (w *World) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	unique := func(kind string) func(id string) {
		seen := map[string]bool{}
		return func(id string) {
			switch {
			case strings.TrimSpace(id) == "":
				bad("%s with an empty id", kind)
			case seen[id]:
				bad("%s %q appears twice", kind, id)
			}
			seen[id] = true
		}
	}
	checkDate := func(what, s string, required bool) {
		if s == "" && !required {
			return
		}
		if _, err := parseDate(s); err != nil {
			bad("%s: %v", what, err)
		}
	}
	checkPeriod := func(what string, p Period) {
		checkDate(what+" start", p.StartDate, false)
		checkDate(what+" end", p.EndDate, false)
	}

	studentNumber, personID := unique("student number"), unique("person id")
	persons := map[string]bool{}
	for _, p := range w.Persons {
		studentNumber(p.StudentNumber)
		personID(p.PersonID)
		persons[p.PersonID] = true
	}
	code, cuID, realisationID := unique("course code"), unique("course unit id"), unique("realisation id")
	realisations := map[string]bool{}
	for _, cu := range w.CourseUnits {
		code(cu.Code)
		cuID(cu.ID)
		if cu.Credits != nil && cu.Credits.Min > cu.Credits.Max {
			bad("course unit %s: credits min %v above max %v", cu.Code, cu.Credits.Min, cu.Credits.Max)
		}
		if cu.GradeScaleID == "" {
			bad("course unit %s: no grade scale", cu.Code)
		}
		for _, r := range cu.Realisations {
			realisationID(r.ID)
			realisations[r.ID] = true
			checkPeriod("realisation "+r.ID+" activity period", r.ActivityPeriod)
		}
	}
	allowed := unique("allowed course code")
	for _, a := range w.AllowList {
		allowed(a.Code)
	}
	enrolmentID := unique("enrolment id")
	for _, e := range w.Enrolments {
		enrolmentID(e.ID)
		if !persons[e.PersonID] {
			bad("enrolment %s: no person %q", e.ID, e.PersonID)
		}
		if !realisations[e.CourseUnitRealisationID] {
			bad("enrolment %s: no realisation %q", e.ID, e.CourseUnitRealisationID)
		}
		if e.State == "" {
			bad("enrolment %s: no state", e.ID)
		}
		if e.Kind != "" && e.Kind != KindDegree && e.Kind != KindOpenUni {
			bad("enrolment %s: kind %q is neither %s nor %s", e.ID, e.Kind, KindDegree, KindOpenUni)
		}
		if e.StudyRightValidityPeriod != nil {
			checkPeriod("enrolment "+e.ID+" study right", *e.StudyRightValidityPeriod)
		}
	}
	attainmentID := unique("attainment id")
	for _, a := range w.Attainments {
		attainmentID(a.ID)
		if a.Type != TypeCourseUnit && a.Type != TypeAssessmentItem {
			bad("attainment %s: type %q", a.ID, a.Type)
		}
		checkDate("attainment "+a.ID+" attainmentDate", a.AttainmentDate, true)
		checkDate("attainment "+a.ID+" registrationDate", a.RegistrationDate, false)
	}
	submissionID := unique("submission id")
	for _, s := range w.Submissions {
		submissionID(s.ID)
		switch s.SendState {
		case SendNotSent, SendAttempted, SendAccepted, SendRejected:
		default:
			bad("submission %s: send state %q", s.ID, s.SendState)
		}
		if s.CreatedAt.IsZero() {
			bad("submission %s: no createdAt", s.ID)
		}
		checkDate("submission "+s.ID+" attainmentDate", s.AttainmentDate, true)
	}
	return errors.Join(errs...)
}

// clone returns a deep copy, so callers outside the server's lock never share its slices.
func (w *World) clone() *World {
	b, err := json.Marshal(w)
	if err != nil {
		// Every field marshals; this is unreachable.
		return &World{}
	}
	var c World
	if err := json.Unmarshal(b, &c); err != nil {
		return &World{}
	}
	return &c
}
