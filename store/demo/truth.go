package demo

import "time"

// SisuTruth is what Sisu holds for one ledger row that reached Sisu or found its credit there:
// enough for a fake registry to answer the pipeline's and the dashboard's questions about the
// row in agreement with the ledger. The ledger never stores it; Write hands it to
// Config.Truth.
type SisuTruth struct {
	// RegistrationID is the ledger row's id (canonical UUID text).
	RegistrationID string
	// StudentNumber and PersonID are the student as Sisu knows them.
	StudentNumber string
	PersonID      string
	// CourseCode, CourseUnitID, RealisationID, AssessmentItemID and EnrolmentID name what the
	// student enrolled in; EnrolmentID is the row's selected_enrolment_id (or the one it had
	// before a notRegistered reset).
	CourseCode       string
	CourseUnitID     string
	RealisationID    string
	AssessmentItemID string
	EnrolmentID      string
	// SubmittedAttainmentID is the hy-kur-… id an answer of Suotar's gave the row; "" when none
	// did (an attainment that landed anyway is still in Attainments, under Suotar's id).
	SubmittedAttainmentID string
	// SubmittedAt is the row's submitted_at (zero when the credit was found before sending).
	SubmittedAt time.Time
	// Landed reports whether our own import created an attainment in Sisu. For a
	// submission_uncertain row it is the answer the row is waiting for.
	Landed bool
	// Attainments are Sisu's attainments for the student on the course that matter to the row:
	// ours (AI, then CU), or the one another registrar put there.
	Attainments []SisuAttainment
	// Conflict is "" when Sisu agrees with the ledger, else what differs: "grade" or "date".
	Conflict string
}

// SisuAttainment is one attainment in Sisu.
type SisuAttainment struct {
	ID   string
	Type string // AssessmentItemAttainment or CourseUnitAttainment
	// AssessmentItemAttainmentIDs are, for a CU, the AI attainments it was built from.
	AssessmentItemAttainmentIDs []string
	AttainmentDate              string // YYYY-MM-DD, the Helsinki date
	RegistrationDate            string
	GradeScaleID                string
	GradeID                     string
	Credits                     float32
	Misregistered               bool
	// VisibleAt is when Suotar's (lagging) copy of Sisu starts showing the attainment.
	VisibleAt time.Time
}

// emitTruth hands the row's Sisu side to Config.Truth. conflict names a deliberate
// disagreement, applied to the last attainment.
func (l *life) emitTruth(conflict string) {
	g, r := l.g, l.r
	if g.truth == nil {
		return
	}
	c := r.c
	s, m := c.student, c.module
	rz := m.realisationAt(c.completionDate)
	t := SisuTruth{
		RegistrationID:        uuidString(r.id),
		StudentNumber:         s.number,
		PersonID:              s.personID,
		CourseCode:            m.def.code,
		CourseUnitID:          m.courseUnitID,
		RealisationID:         rz.id,
		AssessmentItemID:      rz.assessmentItemID,
		EnrolmentID:           l.enrolmentID,
		SubmittedAttainmentID: l.plan.aiID,
		SubmittedAt:           r.submittedAt,
		Landed:                l.plan.landed,
		Conflict:              conflict,
	}
	if r.studentNumber != "" {
		t.StudentNumber = r.studentNumber
	}
	if r.submittedAttainmentID == "" && !l.plan.returnedID {
		t.SubmittedAttainmentID = ""
	}
	date := c.completionDate.In(helsinki).Format(time.DateOnly)
	grade := r.gradeID
	if grade == "" {
		grade = gradeIDOf(c)
	}
	scale := gradeScaleOf(m)
	add := func(a SisuAttainment) {
		a.AttainmentDate, a.GradeScaleID, a.GradeID, a.Credits = date, scale, grade, m.def.credits
		t.Attainments = append(t.Attainments, a)
	}
	p := l.plan
	switch {
	case p.landed:
		add(SisuAttainment{ID: p.aiID, Type: "AssessmentItemAttainment", RegistrationDate: dateOf(p.aiAt), VisibleAt: p.aiAt, Misregistered: !p.misregAt.IsZero()})
		if !p.cuAt.IsZero() {
			add(SisuAttainment{ID: p.cuID, Type: "CourseUnitAttainment", AssessmentItemAttainmentIDs: []string{p.aiID}, RegistrationDate: dateOf(p.cuAt), VisibleAt: p.cuAt})
		}
	case p.cuID != "": // another registrar's credit, there before we looked
		a := SisuAttainment{ID: p.cuID, Type: "CourseUnitAttainment", RegistrationDate: dateOf(p.cuAt), VisibleAt: p.cuAt}
		add(a)
		if p.betterGrade != "" {
			t.Attainments[len(t.Attainments)-1].GradeID = p.betterGrade
		}
	}
	if conflict != "" && len(t.Attainments) > 0 {
		a := &t.Attainments[len(t.Attainments)-1]
		switch conflict {
		case "grade":
			a.GradeID = conflictingGrade(a.GradeScaleID, a.GradeID)
		case "date":
			a.AttainmentDate = c.completionDate.In(helsinki).AddDate(0, 0, -l.g.between(2, 40)).Format(time.DateOnly)
		}
	}
	g.truth(t)
}

func dateOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(helsinki).Format(time.DateOnly)
}

func conflictingGrade(scale, g string) string {
	if scale != "sis-0-5" {
		return "0"
	}
	if g == "5" {
		return "4"
	}
	return string(g[0] + 1)
}
