package suotarfake

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
)

// index looks the world up by the keys Suotar's importer queries use.
type index struct {
	personBySN  map[string]*Person
	cuByCode    map[string]*CourseUnit
	cuByID      map[string]*CourseUnit
	realisation map[string]placed
	allowed     map[string]AllowedCourse
}

// placed is a realisation with its course unit.
type placed struct {
	cu *CourseUnit
	r  *Realisation
}

// scale is the grade scale an enrolment on the realisation is graded on: the assessment item's,
// else the course unit's.
func (p placed) scale() string {
	if p.r.GradeScaleID != "" {
		return p.r.GradeScaleID
	}
	return p.cu.GradeScaleID
}

// index builds lookups; they point into w, so w's persons and course units must not change while
// the index is in use (the server's lock sees to that).
func (w *World) index() *index {
	x := &index{
		personBySN:  map[string]*Person{},
		cuByCode:    map[string]*CourseUnit{},
		cuByID:      map[string]*CourseUnit{},
		realisation: map[string]placed{},
		allowed:     map[string]AllowedCourse{},
	}
	for i := range w.Persons {
		x.personBySN[w.Persons[i].StudentNumber] = &w.Persons[i]
	}
	for i := range w.CourseUnits {
		cu := &w.CourseUnits[i]
		x.cuByCode[cu.Code], x.cuByID[cu.ID] = cu, cu
		for j := range cu.Realisations {
			x.realisation[cu.Realisations[j].ID] = placed{cu: cu, r: &cu.Realisations[j]}
		}
	}
	for _, a := range w.AllowList {
		x.allowed[a.Code] = a
	}
	return x
}

// batch is the state of one call being answered; it runs under the server's lock.
type batch struct {
	s      *Server
	now    time.Time
	x      *index
	faults []*Fault
	// seen maps a completion already sent in this batch to its submission id, for
	// duplicateRequestItem.
	seen map[string]string
}

func (b *batch) world() *World { return b.s.world }

// visible reports whether Suotar's importer copy shows the attainment yet.
func (b *batch) visible(a *Attainment) bool {
	return a.VisibleAt.IsZero() || !b.now.Before(a.VisibleAt.Time)
}

// Item messages, from Suotar's results module and registry-api.md §7.
const (
	msgPersonNotFound    = "No Sisu person was found for the supplied student number."
	msgSisuTimeout       = "Sisu operation timed out; outcome is uncertain."
	msgSubmissionPending = "This attainment was submitted too recently for Sisu to have shown it to Suotar yet. Keep polling; do not resubmit before retryAfter."
	msgNotRegistered     = "No final or partial Sisu registration evidence was found for the submitted attainment id."
	msgMisregistered     = "A previously registered attainment has been marked misregistered in Sisu."
	msgDuplicateRequest  = "Repeats an earlier item of this batch."
	msgForced            = "Forced by the fake."
)

func (b *batch) resolvePerson(it reqItem) answerItem {
	p := b.x.personBySN[it.fields["studentNumber"]]
	if p == nil {
		return errItem("personNotFound", msgPersonNotFound, nil)
	}
	return okItem("personFound", personResult(p))
}

func personResult(p *Person) map[string]any {
	return map[string]any{"studentNumber": p.StudentNumber, "personId": p.PersonID, "firstNames": p.FirstNames, "lastName": p.LastName}
}

func (b *batch) resolveEnrolments(it reqItem) answerItem {
	p := b.x.personBySN[it.fields["studentNumber"]]
	if p == nil {
		return errItem("personNotFound", msgPersonNotFound, nil)
	}
	code := it.fields["courseCode"]
	cu := b.x.cuByCode[code]
	if cu == nil {
		return errItem("courseCodeNotFound", fmt.Sprintf("No Sisu course unit has the code %s.", code), nil)
	}
	var enrolments []any
	for _, e := range b.enrolmentsOn(p, cu) {
		enrolments = append(enrolments, b.enrolmentOut(e))
	}
	existing := b.attainmentsOut(b.earlier(p.PersonID, cu.Code))
	if len(enrolments) == 0 {
		var result any
		if len(existing) > 0 {
			result = map[string]any{"enrolments": []any{}, "existingAttainments": existing}
		}
		return errItem("enrolmentNotFound", fmt.Sprintf("No ENROLLED enrolment of the person on %s was found.", code), result)
	}
	return okItem("enrolmentFound", map[string]any{"enrolments": enrolments, "existingAttainments": nonNil(existing)})
}

func nonNil(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// enrolmentsOn returns the person's ENROLLED enrolments on the course unit's realisations: the
// importer keeps no others.
func (b *batch) enrolmentsOn(p *Person, cu *CourseUnit) []*Enrolment {
	var out []*Enrolment
	w := b.world()
	for i := range w.Enrolments {
		e := &w.Enrolments[i]
		if e.PersonID == p.PersonID && e.State == StateEnrolled && b.x.realisation[e.CourseUnitRealisationID].cu == cu {
			out = append(out, e)
		}
	}
	return out
}

func kindOf(e *Enrolment) string {
	switch {
	case e.Kind != "":
		return e.Kind
	case strings.Contains(e.StudyRightID, "avoin"):
		return KindOpenUni
	}
	return KindDegree
}

func (b *batch) enrolmentOut(e *Enrolment) map[string]any {
	pl := b.x.realisation[e.CourseUnitRealisationID]
	m := map[string]any{
		"id":                        e.ID,
		"state":                     e.State,
		"kind":                      kindOf(e),
		"courseUnitId":              pl.cu.ID,
		"assessmentItemId":          pl.r.AssessmentItemID,
		"courseUnitRealisationId":   pl.r.ID,
		"courseUnitRealisationName": pl.r.Name,
		"activityPeriod":            b.periodOut(pl.r.ActivityPeriod),
		"gradeScaleId":              pl.scale(),
	}
	if pl.cu.Credits != nil {
		m["credits"] = pl.cu.Credits
	}
	if e.StudyRightID != "" {
		m["studyRightId"] = e.StudyRightID
		if e.StudyRightValidityPeriod != nil {
			m["studyRightValidityPeriod"] = b.periodOut(*e.StudyRightValidityPeriod)
		}
	}
	if !e.EnrolmentDateTime.IsZero() {
		if b.s.quirks {
			m["enrolmentDateTime"] = e.EnrolmentDateTime.In(schedule.Helsinki()).Format("2006-01-02T15:04:05")
		} else {
			m["enrolmentDateTime"] = e.EnrolmentDateTime.UTC().Format(time.RFC3339)
		}
	}
	return m
}

func (b *batch) periodOut(p Period) map[string]any {
	return map[string]any{"startDate": b.dateOut(p.StartDate), "endDate": b.dateOut(p.EndDate)}
}

// dateOut writes a date as Suotar does, or with quirks as Sisu's UTC-midnight instant.
func (b *batch) dateOut(s string) any {
	switch {
	case s == "":
		return nil
	case b.s.quirks:
		return s + "T00:00:00.000Z"
	}
	return s
}

// earlier returns the person's attainments on the course code as Suotar's importer copy shows
// them: visible, not misregistered, attained within ten years, both types, any state.
func (b *batch) earlier(personID, code string) []*Attainment {
	cutoff := helsinkiDay(b.now).AddDate(-10, 0, 0)
	var out []*Attainment
	w := b.world()
	for i := range w.Attainments {
		a := &w.Attainments[i]
		cu := b.x.cuByID[a.CourseUnitID]
		if a.PersonID != personID || cu == nil || cu.Code != code || a.Misregistration || !b.visible(a) {
			continue
		}
		if d, err := parseDate(a.AttainmentDate); err != nil || d.Before(cutoff) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func (b *batch) attainmentsOut(as []*Attainment) []any {
	var out []any
	for _, a := range as {
		out = append(out, b.attainmentOut(a))
	}
	return out
}

func (b *batch) attainmentOut(a *Attainment) map[string]any {
	m := map[string]any{
		"id":                      a.ID,
		"type":                    a.Type,
		"state":                   a.State,
		"personId":                a.PersonID,
		"courseUnitId":            a.CourseUnitID,
		"assessmentItemId":        nilIfEmpty(a.AssessmentItemID),
		"courseUnitRealisationId": nilIfEmpty(a.CourseUnitRealisationID),
		"attainmentDate":          b.dateOut(a.AttainmentDate),
		"registrationDate":        b.dateOut(a.RegistrationDate),
		"gradeScaleId":            a.GradeScaleID,
		"gradeId":                 b.gradeOut(a.GradeID),
		"passed":                  nil,
	}
	if g, ok := gradeOn(a.GradeScaleID, a.GradeID); ok {
		m["passed"] = g.passed
	}
	if b.s.quirks {
		m["credits"] = a.Credits
	}
	return m
}

// gradeOut writes a gradeId as Suotar does (a string), or with quirks as Sisu's integer.
func (b *batch) gradeOut(id string) any {
	if n, err := strconv.Atoi(id); err == nil && b.s.quirks {
		return n
	}
	return id
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// previous writes an attainment the way import's duplicateAttainment and notImprovedAttainment
// results do.
func (b *batch) previous(a *Attainment) map[string]any {
	return map[string]any{"id": a.ID, "type": a.Type, "state": a.State, "attainmentDate": a.AttainmentDate,
		"registrationDate": a.RegistrationDate, "gradeScaleId": a.GradeScaleID, "gradeId": a.GradeID}
}

// mostRecent returns the attainment with the latest attainment date (then registration date):
// Suotar reports that one, whichever attainment its check matched.
func mostRecent(as []*Attainment) *Attainment {
	return slices.MaxFunc(as, func(x, y *Attainment) int {
		if c := strings.Compare(x.AttainmentDate, y.AttainmentDate); c != 0 {
			return c
		}
		return strings.Compare(x.RegistrationDate, y.RegistrationDate)
	})
}

func submitted(id string) map[string]any {
	return map[string]any{"submittedAttainmentId": id, "submittedAttainmentType": TypeAssessmentItem}
}

// importAttainment follows Suotar's import pipeline (registry-api.md §4.1) for one item.
func (b *batch) importAttainment(it reqItem) answerItem {
	f := it.fields
	code, credits := f["courseCode"], it.nums["credits"]
	if _, ok := b.x.allowed[code]; !ok {
		return errItem("courseNotAllowed", fmt.Sprintf("%s cannot be registered through this API yet.", code), nil)
	}
	p := b.x.personBySN[f["studentNumber"]]
	if p == nil {
		return errItem("personNotFound", msgPersonNotFound, nil)
	}
	e, pl := b.namedEnrolment(p, code, f["enrolmentId"])
	if e == nil {
		return errItem("enrolmentNotFound", fmt.Sprintf("Enrolment %s is not an ENROLLED enrolment of this person on %s.", f["enrolmentId"], code), nil)
	}
	if pl.cu.Credits == nil {
		return errItem("invalidCredits", fmt.Sprintf("Course %s has no credit range.", code), nil)
	}
	if c := pl.cu.Credits; credits < c.Min-1e-9 || credits > c.Max+1e-9 {
		return errItem("invalidCredits", fmt.Sprintf("Credits must be between %v and %v for course %s.", c.Min, c.Max, code), nil)
	}
	scale := pl.scale()
	if scaleFamily(f["gradeScaleId"]) != scaleFamily(scale) {
		return errItem("gradeScaleMismatch", fmt.Sprintf("Grade scale %s was sent, but the enrolment is graded on %s.", f["gradeScaleId"], scale), nil)
	}
	g, ok := gradeOn(scale, f["gradeId"])
	if !ok {
		return errItem("invalidGradeForGradeScale", fmt.Sprintf("Grade %s is not a grade of scale %s.", f["gradeId"], scale), nil)
	}
	date, _ := parseDate(f["attainmentDate"]) // checked when the batch was read
	key := strings.Join([]string{p.PersonID, code, scaleFamily(scale), g.localID, formatDate(date), strconv.FormatFloat(credits, 'f', -1, 64)}, "|")
	if b.s.recentSends {
		if first, ok := b.seen[key]; ok {
			return errItem("duplicateRequestItem", msgDuplicateRequest, submitted(first))
		}
		if sub := b.recentSend(key); sub != nil {
			return okItem("duplicateAttainment", map[string]any{"attainment": map[string]any{"id": sub.ID, "type": TypeAssessmentItem,
				"attainmentDate": sub.AttainmentDate, "gradeScaleId": sub.GradeScaleID, "gradeId": sub.GradeID}})
		}
	}
	// The duplicate and improvement checks read the importer's lagged copy: an attainment sent
	// within the last hour is not there, so an identical second import passes both.
	if earlier := b.earlier(p.PersonID, code); len(earlier) > 0 {
		if identical(earlier, g, date, credits) {
			return okItem("duplicateAttainment", map[string]any{"attainment": b.previous(mostRecent(earlier))})
		}
		if !improves(earlier, g, date, credits) {
			return okItem("notImprovedAttainment", map[string]any{"previousAttainment": b.previous(mostRecent(earlier))})
		}
	}
	sisuDate, ok := dateInStudyRight(e, date)
	if !ok {
		return errItem("studyRightNotValid", "No date inside the person's study right could be found for the attainment.", nil)
	}
	sub := b.newSubmission(it, p, e, pl, scale, formatDate(sisuDate))
	if v := b.violations(pl, sisuDate, f["attainmentLanguage"]); len(v) > 0 {
		sub.SendState = SendRejected
		b.world().Submissions = append(b.world().Submissions, sub)
		return errItem("sisuValidationFailed", "Sisu refused the attainment: "+strings.Join(v, "; ")+".", nil)
	}
	b.land(&sub)
	b.seen[key] = sub.ID
	return okItem("sent", submitted(sub.ID))
}

// namedEnrolment finds the enrolment the import names among the person's ENROLLED enrolments on
// the code.
func (b *batch) namedEnrolment(p *Person, code, id string) (*Enrolment, placed) {
	cu := b.x.cuByCode[code]
	if cu == nil {
		return nil, placed{}
	}
	for _, e := range b.enrolmentsOn(p, cu) {
		if e.ID == id {
			return e, b.x.realisation[e.CourseUnitRealisationID]
		}
	}
	return nil, placed{}
}

func (b *batch) recentSend(key string) *Submission {
	w := b.world()
	for i := len(w.Submissions) - 1; i >= 0; i-- {
		s := &w.Submissions[i]
		if s.Lost || s.SendState != SendAccepted && s.SendState != SendAttempted || !b.now.Before(s.CreatedAt.Add(b.s.window)) {
			continue
		}
		g, _ := gradeOn(s.GradeScaleID, s.GradeID)
		k := strings.Join([]string{s.PersonID, s.CourseCode, scaleFamily(s.GradeScaleID), g.localID, s.AttainmentDate, strconv.FormatFloat(s.Credits, 'f', -1, 64)}, "|")
		if k == key {
			return s
		}
	}
	return nil
}

// newSubmission mints the hy-kur id and records the entry as Suotar would before sending.
func (b *batch) newSubmission(it reqItem, p *Person, e *Enrolment, pl placed, scale, sisuDate string) Submission {
	f := it.fields
	return Submission{
		ID: b.s.mintID(), RequestItemID: it.id, StudentNumber: p.StudentNumber, PersonID: p.PersonID,
		CourseCode: f["courseCode"], EnrolmentID: e.ID, CourseUnitID: pl.cu.ID, CourseUnitGroupID: pl.cu.GroupID,
		AssessmentItemID: pl.r.AssessmentItemID, CourseUnitRealisationID: pl.r.ID,
		AttainmentDate: f["attainmentDate"], SisuAttainmentDate: sisuDate, AttainmentLanguage: f["attainmentLanguage"],
		StudyRightID: e.StudyRightID, GradeScaleID: scaleFamily(scale), GradeID: f["gradeId"], Credits: it.nums["credits"],
		SendState: SendAccepted, CreatedAt: DateTime{b.now},
	}
}

// land records an accepted submission and writes its assessment item attainment to Sisu, where
// the importer copy shows it after the lag.
func (b *batch) land(sub *Submission) {
	delay := b.s.cuDelay
	if delay == 0 {
		delay = DefaultCUDelay(sub.ID)
	}
	d := Duration(delay)
	sub.CUDelay, sub.Manual = &d, b.s.manualCU
	w := b.world()
	w.Submissions = append(w.Submissions, *sub)
	w.Attainments = append(w.Attainments, sub.assessmentItemAttainment(b.now, b.now.Add(b.s.lag)))
}

// mintID returns a new hy-kur id: random, as Suotar's, unless the server has a seed.
func (s *Server) mintID() string {
	s.minted++
	if s.seed != "" {
		return "hy-kur-" + DeriveUUID("submission", s.seed, strconv.Itoa(s.minted))
	}
	return "hy-kur-" + randomUUID()
}

// assessmentItemAttainment is the attainment Sisu holds for the submission, created at created
// and shown by the importer from visible.
func (sub *Submission) assessmentItemAttainment(created, visible time.Time) Attainment {
	state := StateAttained
	if sub.GradeID == "0" {
		state = StateFailed
	}
	return Attainment{
		ID: sub.ID, Type: TypeAssessmentItem, PersonID: sub.PersonID, CourseUnitID: sub.CourseUnitID,
		CourseUnitGroupID: sub.CourseUnitGroupID, AssessmentItemID: sub.AssessmentItemID,
		CourseUnitRealisationID: sub.CourseUnitRealisationID, AttainmentDate: sub.sisuDate(),
		RegistrationDate: formatDate(helsinkiDay(created)), State: state, GradeScaleID: sub.GradeScaleID,
		GradeID: sub.GradeID, Credits: sub.Credits, AttainmentLanguage: sub.AttainmentLanguage,
		StudyRightID: sub.StudyRightID, VisibleAt: DateTime{visible},
	}
}

func (sub *Submission) sisuDate() string {
	if sub.SisuAttainmentDate != "" {
		return sub.SisuAttainmentDate
	}
	return sub.AttainmentDate
}

// courseUnitAttainment is the attainment Sisu builds from the assessment item attainment ai.
func courseUnitAttainment(ai *Attainment, at time.Time) Attainment {
	return Attainment{
		ID: "otm-" + DeriveUUID("course-unit-attainment", ai.ID), Type: TypeCourseUnit, PersonID: ai.PersonID,
		CourseUnitID: ai.CourseUnitID, CourseUnitGroupID: ai.CourseUnitGroupID, AttainmentDate: ai.AttainmentDate,
		RegistrationDate: formatDate(helsinkiDay(at)), State: ai.State, GradeScaleID: ai.GradeScaleID,
		GradeID: ai.GradeID, Credits: ai.Credits, AttainmentLanguage: ai.AttainmentLanguage,
		StudyRightID: ai.StudyRightID, AssessmentItemAttainmentIDs: []string{ai.ID}, VisibleAt: DateTime{at},
	}
}

// identical is Suotar's identicalCompletionFound: an earlier attainment with the same grade, date
// and credits.
func identical(earlier []*Attainment, g grade, date time.Time, credits float64) bool {
	for _, a := range earlier {
		eg, ok := gradeOn(a.GradeScaleID, a.GradeID)
		d, err := parseDate(a.AttainmentDate)
		if !ok || err != nil || !d.Equal(date) || math.Abs(a.Credits-credits) > 1e-9 {
			continue
		}
		sameGrade := g.numeric >= 0 && eg.numeric == g.numeric ||
			g.numeric < 0 && g.passed && eg.passed && eg.numeric < 0 ||
			!g.passed && !eg.passed
		if sameGrade {
			return true
		}
	}
	return false
}

// improves is Suotar's isImprovedGrade: the new grade must beat every earlier attainment.
func improves(earlier []*Attainment, g grade, date time.Time, credits float64) bool {
	for _, a := range earlier {
		if !beats(a, g, date, credits) {
			return false
		}
	}
	return true
}

func beats(a *Attainment, g grade, date time.Time, credits float64) bool {
	eg, ok := gradeOn(a.GradeScaleID, a.GradeID)
	if !ok {
		// A grade on a scale the fake does not know is taken as a pass it cannot compare.
		eg = grade{passed: true, numeric: -1}
	}
	d, err := parseDate(a.AttainmentDate)
	// Equal grade: more credits now, or the same credits and the earlier one dated before the day
	// before ("hours dropped in SISU API").
	creditsOrDate := a.Credits < credits-1e-9 ||
		math.Abs(a.Credits-credits) <= 1e-9 && err == nil && d.Before(date.AddDate(0, 0, -1))
	switch {
	case g.numeric >= 1:
		if eg.numeric >= 0 {
			return eg.numeric < g.numeric || eg.numeric == g.numeric && creditsOrDate
		}
		return !eg.passed || creditsOrDate
	case g.passed:
		return !eg.passed || creditsOrDate
	default:
		return !eg.passed && creditsOrDate
	}
}

// dateInStudyRight moves the date into the enrolment's study right, as Suotar does without
// telling the client: before the start it becomes the start, on or after the (exclusive) end it
// becomes the day before the end. No study right, or an empty one, leaves no date.
func dateInStudyRight(e *Enrolment, date time.Time) (time.Time, bool) {
	if e.StudyRightID == "" {
		return time.Time{}, false
	}
	if e.StudyRightValidityPeriod == nil {
		return date, true
	}
	start, errS := parseDate(e.StudyRightValidityPeriod.StartDate)
	end, errE := parseDate(e.StudyRightValidityPeriod.EndDate)
	if errS == nil && errE == nil && !start.Before(end) {
		return time.Time{}, false
	}
	switch {
	case errS == nil && date.Before(start):
		return start, true
	case errE == nil && !date.Before(end):
		return end.AddDate(0, 0, -1), true
	}
	return date, true
}

// violations are Sisu's reasons to refuse the attainment.
func (b *batch) violations(pl placed, date time.Time, language string) []string {
	var v []string
	if len(pl.r.Teachers) == 0 {
		v = append(v, "acceptorPersons: the realisation has no teacher to accept the attainment")
	}
	// Sisu dates by the UTC day: between Helsinki and UTC midnight, Helsinki's today is
	// Sisu's tomorrow.
	if date.After(utcDay(b.now)) {
		v = append(v, fmt.Sprintf("attainmentDate: %s is in the future", formatDate(date)))
	}
	if start, err := parseDate(pl.r.ActivityPeriod.StartDate); err == nil && date.Before(start) {
		v = append(v, fmt.Sprintf("attainmentDate: %s is before the realisation's activity period", formatDate(date)))
	}
	switch language {
	case "fi", "sv", "en":
	default:
		v = append(v, fmt.Sprintf("attainmentLanguageUrn: urn:code:language:%s is not a language", language))
	}
	return v
}

// verify answers from the importer's lagged copy, then from Suotar's own entries (§4.3).
func (b *batch) verify(it reqItem) answerItem {
	id := it.fields["submittedAttainmentId"]
	if a := b.registration(id); a != nil {
		if a.Misregistration {
			return errItem("misregistered", msgMisregistered, nil)
		}
		return okItem("registered", map[string]any{"attainment": map[string]any{"id": a.ID, "type": a.Type}})
	}
	if sub, ok := b.world().submission(id); ok && !sub.Lost {
		switch {
		case sub.SendState == SendAttempted && b.now.Before(sub.CreatedAt.Add(b.s.window)):
			return b.pending(id, sub.CreatedAt.Add(b.s.window))
		case sub.SendState == SendAccepted:
			// Suotar never gives up on an accepted entry; it keeps telling the client to wait.
			return b.pending(id, b.now.Add(b.s.window))
		}
	}
	return errItem("notRegistered", msgNotRegistered, nil)
}

func (b *batch) pending(id string, retryAfter time.Time) answerItem {
	r := submitted(id)
	r["retryAfter"] = retryAfter.UTC().Format("2006-01-02T15:04:05.000Z")
	return errItem("submissionPending", msgSubmissionPending, r)
}

// registration finds what the importer's attainment-status shows for a submitted id: a course
// unit attainment built from it (or with that id) first, a not-misregistered one before a
// misregistered one, else the attainment with that id itself.
func (b *batch) registration(id string) *Attainment {
	var cu, ai *Attainment
	w := b.world()
	for i := range w.Attainments {
		a := &w.Attainments[i]
		if !b.visible(a) {
			continue
		}
		switch {
		case a.Type == TypeCourseUnit && (a.ID == id || slices.Contains(a.AssessmentItemAttainmentIDs, id)):
			if cu == nil || cu.Misregistration && !a.Misregistration {
				cu = a
			}
		case a.ID == id:
			ai = a
		}
	}
	if cu != nil {
		return cu
	}
	return ai
}

func (w *World) submission(id string) (*Submission, bool) {
	for i := range w.Submissions {
		if w.Submissions[i].ID == id {
			return &w.Submissions[i], true
		}
	}
	return nil, false
}

// listByCourse lists everyone ENROLLED on realisations whose activity ended less than two months
// ago. A legacy courseUnitRealisationId narrows the list to that realisation.
func (b *batch) listByCourse(it reqItem) answerItem {
	code := it.fields["courseCode"]
	cu := b.x.cuByCode[code]
	if cu == nil {
		return errItem("courseCodeNotFound", fmt.Sprintf("No Sisu course unit has the code %s.", code), nil)
	}
	cutoff := helsinkiDay(b.now).AddDate(0, -2, 0)
	open := map[string]bool{}
	for _, r := range cu.Realisations {
		if only := it.fields["courseUnitRealisationId"]; only != "" && r.ID != only {
			continue
		}
		if end, err := parseDate(r.ActivityPeriod.EndDate); err != nil || end.After(cutoff) {
			open[r.ID] = true
		}
	}
	if len(open) == 0 {
		return errItem("courseCodeNotFound", fmt.Sprintf("No realisation of %s ended less than two months ago.", code), nil)
	}
	people := []any{}
	w := b.world()
	for i := range w.Enrolments {
		e := &w.Enrolments[i]
		if !open[e.CourseUnitRealisationID] || e.State != StateEnrolled {
			continue
		}
		var p *Person
		for j := range w.Persons {
			if w.Persons[j].PersonID == e.PersonID {
				p = &w.Persons[j]
			}
		}
		if p == nil {
			continue
		}
		enrolment := map[string]any{"id": e.ID, "courseUnitRealisationId": e.CourseUnitRealisationID, "state": e.State}
		if !e.EnrolmentDateTime.IsZero() {
			enrolment["enrolmentDateTime"] = e.EnrolmentDateTime.UTC().Format(time.RFC3339)
		}
		person := personResult(p)
		person["primaryEmail"], person["secondaryEmail"] = nilIfEmpty(p.PrimaryEmail), nilIfEmpty(p.SecondaryEmail)
		person["enrolment"] = enrolment
		people = append(people, person)
	}
	return okItem("enrolmentsListed", map[string]any{"people": people})
}

// validateCourseCode reads only Suotar's allow-list; it involves no Sisu lookup.
func (b *batch) validateCourseCode(it reqItem) answerItem {
	code := it.fields["courseCode"]
	if a, ok := b.x.allowed[code]; ok {
		return okItem("courseAllowed", map[string]any{"courseCode": a.Code, "name": a.Name})
	}
	return errItem("courseNotAllowed", fmt.Sprintf("%s cannot be registered through this API yet.", code), nil)
}

// settle writes into Sisu every course unit attainment due by now: for each submission whose
// assessment item attainment Sisu holds, once its delay has passed.
func (s *Server) settle(now time.Time) {
	w := s.world
	built := map[string]bool{}
	ais := map[string]int{}
	for i, a := range w.Attainments {
		if a.Type == TypeCourseUnit {
			for _, id := range a.AssessmentItemAttainmentIDs {
				built[id] = true
			}
		} else {
			ais[a.ID] = i
		}
	}
	for _, sub := range w.Submissions {
		i, ok := ais[sub.ID]
		if !ok || sub.Manual || sub.Lost || built[sub.ID] {
			continue
		}
		due := sub.CreatedAt.Add(s.cuDelayOf(&sub))
		if now.Before(due) {
			continue
		}
		w.Attainments = append(w.Attainments, courseUnitAttainment(&w.Attainments[i], due))
	}
}

func (s *Server) cuDelayOf(sub *Submission) time.Duration {
	if sub.CUDelay != nil {
		return time.Duration(*sub.CUDelay)
	}
	return DefaultCUDelay(sub.ID)
}

// forced returns the first acting itemCode fault that selects the item.
func (b *batch) forced(it reqItem) *Fault {
	for _, f := range b.faults {
		if f.Effect == FaultItemCode && f.matchesItem(it) {
			return f
		}
	}
	return nil
}

// okCodes are the codes Suotar sends with status ok.
var okCodes = map[string]bool{
	"personFound": true, "enrolmentFound": true, "sent": true, "duplicateAttainment": true,
	"notImprovedAttainment": true, "registered": true, "enrolmentsListed": true, "courseAllowed": true, "found": true,
}

// forcedItem answers an item with a forced code, with the result and side effects that code
// has in Suotar: an import sisuTimeout leaves an ATTEMPTED entry (and, landed, the attainment),
// a sisuValidationFailed a REJECTED one.
func (b *batch) forcedItem(ep *endpoint, it reqItem, f *Fault) answerItem {
	var result map[string]any
	message := msgForced
	switch ep.path + " " + f.Code {
	case PathImportAttainments + " sisuTimeout":
		message = msgSisuTimeout
		result = submitted(b.forcedSubmission(it, SendAttempted, f.Landed))
	case PathImportAttainments + " sent":
		result = submitted(b.forcedSubmission(it, SendAccepted, true))
	case PathImportAttainments + " sisuValidationFailed":
		b.forcedSubmission(it, SendRejected, false)
	case PathImportAttainments + " duplicateRequestItem", PathImportAttainments + " submissionPending":
		result = submitted(b.s.mintID())
		if f.Code == "submissionPending" {
			result["retryAfter"] = b.now.Add(b.s.window).UTC().Format("2006-01-02T15:04:05.000Z")
		}
	case PathVerifyAttainments + " submissionPending":
		return b.pending(it.fields["submittedAttainmentId"], b.now.Add(b.s.window))
	case PathVerifyAttainments + " registered":
		result = map[string]any{"attainment": map[string]any{"id": it.fields["submittedAttainmentId"], "type": TypeAssessmentItem}}
	case PathVerifyAttainments + " notRegistered":
		message = msgNotRegistered
	case PathVerifyAttainments + " misregistered":
		message = msgMisregistered
	case PathResolveEnrolments + " enrolmentNotFound", PathResolveEnrolments + " enrolmentNotAccepted":
		p, cu := b.x.personBySN[it.fields["studentNumber"]], b.x.cuByCode[it.fields["courseCode"]]
		if p != nil && cu != nil {
			if existing := b.attainmentsOut(b.earlier(p.PersonID, cu.Code)); len(existing) > 0 {
				result = map[string]any{"enrolments": []any{}, "existingAttainments": existing}
			}
		}
	case PathResolvePersons + " personNotFound", PathResolveEnrolments + " personNotFound", PathImportAttainments + " personNotFound":
		message = msgPersonNotFound
	}
	if okCodes[f.Code] {
		a := okItem(f.Code, result)
		if result == nil {
			a.Result = map[string]any{}
		}
		return a
	}
	if result == nil {
		return errItem(f.Code, message, nil)
	}
	return errItem(f.Code, message, result)
}

// forcedSubmission records a submission for a forced import answer, resolving what it can of
// the item; with landed it also writes the attainment.
func (b *batch) forcedSubmission(it reqItem, state string, landed bool) string {
	f := it.fields
	sub := Submission{ID: b.s.mintID(), RequestItemID: it.id, StudentNumber: f["studentNumber"], CourseCode: f["courseCode"],
		EnrolmentID: f["enrolmentId"], AttainmentDate: f["attainmentDate"], AttainmentLanguage: f["attainmentLanguage"],
		GradeScaleID: scaleFamily(f["gradeScaleId"]), GradeID: f["gradeId"], Credits: it.nums["credits"],
		SendState: state, CreatedAt: DateTime{b.now}}
	if p := b.x.personBySN[f["studentNumber"]]; p != nil {
		sub.PersonID = p.PersonID
		if e, pl := b.namedEnrolment(p, f["courseCode"], f["enrolmentId"]); e != nil {
			sub.CourseUnitID, sub.CourseUnitGroupID, sub.StudyRightID = pl.cu.ID, pl.cu.GroupID, e.StudyRightID
			sub.AssessmentItemID, sub.CourseUnitRealisationID = pl.r.AssessmentItemID, pl.r.ID
		}
	}
	if landed && sub.PersonID != "" {
		b.land(&sub)
	} else {
		b.world().Submissions = append(b.world().Submissions, sub)
	}
	return sub.ID
}
