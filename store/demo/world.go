package demo

import (
	"regexp"
	"slices"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

// World collects the Sisu side of the demo data into a fake registry's world, so the fake
// Suotar that make run starts answers lookups in agreement with the ledger: an uncertain row
// that landed is in Sisu, one that did not is not, a partial row has only its assessment item
// attainment, and a conflicting row differs in grade or date.
type World struct {
	w           *suotarfake.World
	persons     map[string]bool
	courseUnits map[string]int // code → index in w.CourseUnits
	realisation map[string]bool
	enrolments  map[string]bool
	attainments map[string]bool
	submissions map[string]bool
}

// NewWorld returns an empty collector; pass its Add method as Config.Truth.
func NewWorld() *World {
	return &World{
		w:           suotarfake.NewWorld(),
		persons:     map[string]bool{},
		courseUnits: map[string]int{},
		realisation: map[string]bool{},
		enrolments:  map[string]bool{},
		attainments: map[string]bool{},
		submissions: map[string]bool{},
	}
}

// demoTeacher accepts every demo attainment: Sisu refuses an attainment whose realisation has
// no teacher.
const demoTeacher = "hy-hlo-demo-teacher"

// Add records one row's Sisu side.
func (c *World) Add(t SisuTruth) {
	if t.StudentNumber == "" || t.PersonID == "" || t.CourseCode == "" {
		return // nothing Sisu could be asked about
	}
	if !c.persons[t.PersonID] {
		c.persons[t.PersonID] = true
		c.w.AddPerson(suotarfake.Person{StudentNumber: t.StudentNumber, PersonID: t.PersonID})
	}
	scale, credits, date := "sis-0-5", 5.0, ""
	if len(t.Attainments) > 0 {
		a := t.Attainments[0]
		scale, credits, date = a.GradeScaleID, float64(a.Credits), a.AttainmentDate
	}
	i, ok := c.courseUnits[t.CourseCode]
	if !ok {
		i = len(c.w.CourseUnits)
		c.courseUnits[t.CourseCode] = i
		c.w.AddCourseUnit(suotarfake.CourseUnit{
			Code: t.CourseCode, ID: t.CourseUnitID, GroupID: groupOf(t.CourseUnitID),
			Name:         suotarfake.Text{EN: t.CourseCode},
			Credits:      &suotarfake.Credits{Min: credits, Max: credits},
			GradeScaleID: scale,
		})
		c.w.Allow(t.CourseCode, t.CourseCode)
	}
	if t.RealisationID != "" && !c.realisation[t.RealisationID] {
		c.realisation[t.RealisationID] = true
		cu := &c.w.CourseUnits[i]
		cu.Realisations = append(cu.Realisations, suotarfake.Realisation{
			ID: t.RealisationID, Name: suotarfake.Text{EN: t.CourseCode},
			// Wide enough for every demo date: the demo spans the last two years.
			ActivityPeriod:   suotarfake.Period{StartDate: "2020-01-01", EndDate: "2030-01-01"},
			AssessmentItemID: t.AssessmentItemID,
			Teachers:         []string{demoTeacher},
		})
	}
	if t.EnrolmentID != "" && t.RealisationID != "" && !c.enrolments[t.EnrolmentID] {
		c.enrolments[t.EnrolmentID] = true
		c.w.AddEnrolment(suotarfake.Enrolment{
			ID: t.EnrolmentID, PersonID: t.PersonID, CourseUnitRealisationID: t.RealisationID,
			State: suotarfake.StateEnrolled, Kind: suotarfake.KindDegree,
		})
	}
	for _, a := range t.Attainments {
		if c.attainments[a.ID] {
			continue
		}
		c.attainments[a.ID] = true
		state := suotarfake.StateAttained
		c.w.AddAttainment(suotarfake.Attainment{
			ID: a.ID, Type: a.Type, PersonID: t.PersonID, CourseUnitID: t.CourseUnitID,
			CourseUnitGroupID: groupOf(t.CourseUnitID), AssessmentItemID: t.AssessmentItemID,
			CourseUnitRealisationID: t.RealisationID, AttainmentDate: a.AttainmentDate,
			RegistrationDate: a.RegistrationDate, State: state, GradeScaleID: a.GradeScaleID,
			GradeID: a.GradeID, Credits: float64(a.Credits), Misregistration: a.Misregistered,
			AssessmentItemAttainmentIDs: slices.Clone(a.AssessmentItemAttainmentIDs),
			VisibleAt:                   suotarfake.DateTime{Time: a.VisibleAt},
		})
	}
	if t.SubmittedAttainmentID != "" && !c.submissions[t.SubmittedAttainmentID] && !t.SubmittedAt.IsZero() {
		c.submissions[t.SubmittedAttainmentID] = true
		// Sisu's copy of this submission: attempted when nothing landed (verify answers
		// submissionPending inside the pending window, then notRegistered), accepted when it did.
		// Manual: the demo's attainments are already in the world, so the fake must not make
		// another course unit attainment of its own.
		send := suotarfake.SendAttempted
		if t.Landed {
			send = suotarfake.SendAccepted
		}
		gradeScale, grade := scale, ""
		if len(t.Attainments) > 0 {
			grade = t.Attainments[0].GradeID
		}
		if date == "" {
			date = t.SubmittedAt.Format(time.DateOnly)
		}
		c.w.AddSubmission(suotarfake.Submission{
			ID: t.SubmittedAttainmentID, StudentNumber: t.StudentNumber, PersonID: t.PersonID,
			CourseCode: t.CourseCode, EnrolmentID: t.EnrolmentID, CourseUnitID: t.CourseUnitID,
			AssessmentItemID: t.AssessmentItemID, CourseUnitRealisationID: t.RealisationID,
			AttainmentDate: date, GradeScaleID: gradeScale, GradeID: grade, Credits: credits,
			SendState: send, CreatedAt: suotarfake.DateTime{Time: t.SubmittedAt}, Manual: true,
		})
	}
}

// Result returns the collected world.
func (c *World) Result() *suotarfake.World { return c.w }

var versionSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}$`)

// groupOf turns a versioned course unit id (hy-CU-137765567-2020-08-01) into its group id
// (hy-CU-137765567); an id without a version date is its own group.
func groupOf(id string) string { return versionSuffix.ReplaceAllString(id, "") }
