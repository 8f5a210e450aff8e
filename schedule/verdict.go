package schedule

import (
	"fmt"
	"slices"
	"time"
)

// VerdictKind is the answer to "does Sisu already hold this registration?". The values are stored
// in the history of every lookup and are data-verdict attributes, so they never change.
type VerdictKind string

// The verdicts, in display order.
const (
	// VerdictRegistered: a course unit attainment matches; the credit counts.
	VerdictRegistered VerdictKind = "registered"
	// VerdictPartlyRegistered: only the assessment item attainment matches; the course unit
	// attainment Sisu builds from it is not there yet.
	VerdictPartlyRegistered VerdictKind = "partly_registered"
	// VerdictNotInSisu: nothing Sisu holds looks like the submission.
	VerdictNotInSisu VerdictKind = "not_in_sisu"
	// VerdictConflicting: something Sisu holds looks like the submission but differs from it.
	VerdictConflicting VerdictKind = "conflicting"
	// VerdictCannotTell: the payload or Suotar's answer leaves nothing to compare.
	VerdictCannotTell VerdictKind = "cannot_tell"
)

var verdictKinds = newEnumTable("Sisu verdict",
	VerdictRegistered,
	VerdictPartlyRegistered,
	VerdictNotInSisu,
	VerdictConflicting,
	VerdictCannotTell,
)

// VerdictKinds returns every verdict in display order.
func VerdictKinds() []VerdictKind { return verdictKinds.list() }

// Valid reports whether k is a known verdict.
func (k VerdictKind) Valid() bool { return verdictKinds.valid(k) }

// Sisu's spellings of the attainment types and of the state the match rule excludes.
const (
	AttainmentCourseUnit     = "CourseUnitAttainment"
	AttainmentAssessmentItem = "AssessmentItemAttainment"
	AttainmentStateFailed    = "FAILED"
)

// RecoveryRegistrationWindowDays is how many days after the submission day an attainment may be
// registered and still count as the submission although its attainment date differs: the LMS's
// RECOVERY_REGISTRATION_WINDOW_DAYS. Suotar moves a date into the study right without saying so,
// so the registration date is the other way to recognise a submission.
const RecoveryRegistrationWindowDays = 2

// Submission is what regdesk sent for a row: its frozen payload and Suotar's handle on it.
type Submission struct {
	GradeScaleID string
	GradeID      string
	// AttainedAt is attained_at; its Helsinki date is the attainment date sent. Nil when NULL.
	AttainedAt *time.Time
	// SubmittedAt is when the row was last sent; the registration window runs from its Helsinki
	// date. Nil when never sent.
	SubmittedAt *time.Time
	// SubmittedAttainmentID is the hy-kur id Suotar named for the submission; "" when unknown.
	SubmittedAttainmentID string
}

// SisuAttainment is one attainment Sisu holds for the student on the course code.
type SisuAttainment struct {
	ID               string
	Type             string
	State            string
	AttainmentDate   Date
	RegistrationDate Date
	GradeScaleID     string
	GradeID          string
	// Credits is nil when Suotar did not say (it usually does not).
	Credits *float64
	// AssessmentItemAttainmentIDs, on a course unit attainment, names the assessment item
	// attainments it was built from. Suotar's existingAttainments do not carry it today; when
	// it is empty nothing is inferred from it.
	AssessmentItemAttainmentIDs []string
}

// IsCourseUnit reports whether a is the course unit attainment that makes a credit count. Any
// other type is, like the assessment item attainment, only evidence on the way there.
func (a SisuAttainment) IsCourseUnit() bool { return a.Type == AttainmentCourseUnit }

// VerifyEvidence is Suotar's verify answer for the submitted attainment id.
type VerifyEvidence struct {
	// Code is Suotar's code: registered, notRegistered, submissionPending, misregistered, or
	// another.
	Code string
	// AttainmentID and AttainmentType name the attainment on registered.
	AttainmentID   string
	AttainmentType string
	// RetryAfter is Suotar's "do not resubmit before" on submissionPending.
	RetryAfter *time.Time
}

// LookupCall names one of a lookup's calls to Suotar.
type LookupCall string

// The calls a lookup makes. Both can show the credit: the attainment list by what Sisu holds,
// the verify call by what became of the submitted attainment id.
const (
	CallAttainments LookupCall = "attainments"
	CallVerify      LookupCall = "verify"
)

// FailedCall is a lookup call that brought no usable answer.
type FailedCall struct {
	Call LookupCall
	// Why is the failure as the caller's error put it, for a failure of no Kind the catalogue
	// words (the phrase carries it as its text).
	Why string
	// Kind is the failure's code, HTTPStatus and LimitMS its details, for the edge to word it;
	// "" when unknown.
	Kind       string
	HTTPStatus int
	LimitMS    int64
}

// phrase is the failure as a Phrase: its kind's words, or Why for a kind without any.
func (f FailedCall) phrase() Phrase {
	var why Phrase
	switch {
	case f.Kind == "timeout" && f.LimitMS > 0:
		why = say("suotarFailure.timeoutWithin").span("Limit", time.Duration(f.LimitMS)*time.Millisecond)
	case f.Kind == "rejected":
		why = say("suotarFailure.rejected").arg("Status", fmt.Sprint(f.HTTPStatus))
	case f.Kind != "":
		why = say("suotarFailure." + f.Kind)
	default:
		why = say("why.failure")
	}
	why.Text = f.Why
	return say("why.failedCall").part("Call", say("call."+string(f.Call))).part("Why", why)
}

// Lookup is what Suotar said about the student on the course code.
type Lookup struct {
	// Code is Suotar's code for the lookup (enrolmentFound, personNotFound, …); "" when unknown.
	Code string
	// Attainments are every attainment Suotar listed, in its order.
	Attainments []SisuAttainment
	// Verify is the verify answer for the submitted id; nil when not asked or not answered.
	Verify *VerifyEvidence
	// Failed are the calls that brought no usable answer. A failed call could have shown the
	// credit, so a lookup with one can never conclude that Sisu lacks it.
	Failed []FailedCall
}

// RegistrationWindow is when Sisu may have registered a submission it took although the
// attainment date differs: 0 to RecoveryRegistrationWindowDays days after the day it was sent.
// That day is read two ways, and an attainment registered within the window of either matches:
// the pipeline counts from submitted_at's UTC date (the LMS's date_naive()), people and regdesk
// from its Helsinki date, and the two differ for a submission made between Helsinki and UTC
// midnight. The window is never narrower than the pipeline's.
type RegistrationWindow struct {
	// HelsinkiDay and UTCDay are submitted_at's day in Helsinki and in UTC; zero when the row has
	// no submitted_at.
	HelsinkiDay, UTCDay Date
}

// WindowOf returns the registration window of a submission sent at submittedAt; the zero window
// (matching nothing) for nil.
func WindowOf(submittedAt *time.Time) RegistrationWindow {
	if submittedAt == nil {
		return RegistrationWindow{}
	}
	return RegistrationWindow{HelsinkiDay: HelsinkiDate(*submittedAt), UTCDay: DateOf(submittedAt.UTC())}
}

// IsZero reports whether the window is unknown (no submission time).
func (w RegistrationWindow) IsZero() bool { return w.HelsinkiDay.IsZero() && w.UTCDay.IsZero() }

// Contains reports whether an attainment registered on reg falls in the window.
func (w RegistrationWindow) Contains(reg Date) bool {
	return inWindow(reg, w.HelsinkiDay) || inWindow(reg, w.UTCDay)
}

// First and Last are the window's first and last registration days.
func (w RegistrationWindow) First() Date {
	if w.UTCDay.Before(w.HelsinkiDay) {
		return w.UTCDay
	}
	return w.HelsinkiDay
}

// Last is the window's last registration day.
func (w RegistrationWindow) Last() Date {
	d := w.HelsinkiDay
	if d.Before(w.UTCDay) {
		d = w.UTCDay
	}
	return d.AddDays(RecoveryRegistrationWindowDays)
}

// Verdict says whether Sisu holds a submission, which attainment shows it, and why, as phrases the
// edge words for the support person who reads it.
type Verdict struct {
	Kind VerdictKind
	// Match is the attainment that shows the submission; nil when none does (or when only
	// Suotar's verify answer shows it).
	Match *SisuAttainment
	// Say says why, and what to do about it: phrases, one a sentence, for the edge to word in
	// the reader's language.
	Say []Phrase
	// Matches are the ids of every attainment that matches, Match among them, in the order given:
	// a course unit attainment and the assessment item attainment it was built from both match.
	Matches []string
	// Conflicts are attainments that look like the submission but differ from it.
	Conflicts []Conflict
	// Ours are the ids of attainments tied to the submission by id: the submitted assessment
	// item attainment, a course unit attainment built from it, or the one verify named.
	Ours []string
	// Window is the registration window the attainments were weighed against; zero when the row
	// has no submission time.
	Window RegistrationWindow
}

// Conflict is an attainment that looks like the submission (tied to it by id, dated the same
// day, or registered right after it) but does not match it.
type Conflict struct {
	AttainmentID string
	Type         string
	// Say are the ways it differs, a phrase each (why.diff.grade: "grade 3, regdesk sent 4").
	Say []Phrase
}

// judged is one attainment weighed against the submission.
type judged struct {
	a       *SisuAttainment
	ours    bool
	byDate  bool // same attainment date
	byReg   bool // registered within the window after the submission day
	say     []Phrase
	related bool
}

func (j judged) matches() bool { return len(j.say) == 0 }

// Judge decides whether Sisu holds the submission, with the rule the LMS's uncertain recovery
// uses (attainment_matching_submission): an attainment matches when its state is not FAILED, its
// grade is the grade sent, its scale is of the same family (sis-hyl-hyv and sis-hyv-hyl are one),
// and its attainment date is the Helsinki date of attained_at or it was registered within the
// RegistrationWindow after submitted_at. A course unit attainment wins over an assessment item
// one. "Not in Sisu" needs every call answered: when a call that could show the credit failed,
// the verdict is "cannot tell", naming the call. now only decides whether "not in Sisu" may still
// be Suotar's lag.
func Judge(sub Submission, l Lookup, now time.Time) Verdict {
	v := judgeAnswers(sub, l, now)
	if len(l.Failed) == 0 {
		return v
	}
	var failedSay []Phrase
	for _, f := range l.Failed {
		failedSay = append(failedSay, f.phrase())
	}
	if v.Kind == VerdictNotInSisu {
		v.Kind, v.Match, v.Conflicts = VerdictCannotTell, nil, nil
		v.Say = []Phrase{say("why.cannotTellFailed").part("Failed", failedSay...)}
		return v
	}
	v.Say = append(v.Say, say("why.alsoFailed").part("Failed", failedSay...))
	return v
}

// judgeAnswers is Judge on the answers that came, as if they were all there were.
func judgeAnswers(sub Submission, l Lookup, now time.Time) Verdict {
	ours := oursOf(sub, l)
	v := Verdict{Ours: ours, Window: WindowOf(sub.SubmittedAt)}

	var missingSay []Phrase
	if sub.GradeID == "" {
		missingSay = append(missingSay, say("why.field.grade"))
	}
	if sub.GradeScaleID == "" {
		missingSay = append(missingSay, say("why.field.scale"))
	}
	if sub.AttainedAt == nil {
		missingSay = append(missingSay, say("why.field.date"))
	}
	if len(missingSay) > 0 {
		v.Kind = VerdictCannotTell
		v.Say = append([]Phrase{say("why.noPayload").part("Missing", missingSay...)}, verifySay(sub, l.Verify)...)
		return v
	}
	switch l.Code {
	case "personNotFound":
		v.Kind = VerdictCannotTell
		v.Say = append([]Phrase{say("why.personNotFound")}, verifySay(sub, l.Verify)...)
		return v
	case "courseCodeNotFound":
		v.Kind = VerdictCannotTell
		v.Say = append([]Phrase{say("why.courseNotFound")}, verifySay(sub, l.Verify)...)
		return v
	}

	sent := HelsinkiDate(*sub.AttainedAt)
	day := v.Window
	all := make([]judged, len(l.Attainments))
	for i := range l.Attainments {
		all[i] = judge(sub, &l.Attainments[i], sent, day, slices.Contains(ours, l.Attainments[i].ID))
	}
	for _, j := range all {
		if j.matches() {
			v.Matches = append(v.Matches, j.a.ID)
		}
		if j.related && !j.matches() {
			v.Conflicts = append(v.Conflicts, Conflict{AttainmentID: j.a.ID, Type: j.a.Type, Say: j.say})
		}
	}
	// Course unit attainments first, so a conflicting one is read before its assessment item.
	slices.SortStableFunc(v.Conflicts, func(x, y Conflict) int {
		return boolRank(x.Type == AttainmentCourseUnit) - boolRank(y.Type == AttainmentCourseUnit)
	})

	best := bestMatch(all)
	switch {
	case best != nil && best.a.IsCourseUnit():
		v.Kind, v.Match = VerdictRegistered, best.a
		v.Say = append(matchedSay("why.holds.", *best, sub, l.Verify, sent, day), say("why.creditCounts"))
	case verifiedAs(l.Verify, AttainmentCourseUnit) && !listed(l.Attainments, l.Verify.AttainmentID):
		v.Kind = VerdictRegistered
		v.Say = []Phrase{say("why.verifiedCourseUnit").arg("Submitted", sub.SubmittedAttainmentID).arg("ID", l.Verify.AttainmentID)}
	case best != nil:
		v.Kind, v.Match = VerdictPartlyRegistered, best.a
		v.Say = append(matchedSay("why.holdsOnly.", *best, sub, l.Verify, sent, day), say("why.partlyNext"))
	case verifiedAs(l.Verify, "") && !listed(l.Attainments, l.Verify.AttainmentID):
		v.Kind = VerdictPartlyRegistered
		v.Say = []Phrase{say("why.verifiedItem").arg("Submitted", sub.SubmittedAttainmentID).part("Type", typeSay(l.Verify.AttainmentType))}
	case len(v.Conflicts) > 0:
		v.Kind = VerdictConflicting
		c := v.Conflicts[0]
		v.Say = append([]Phrase{say("why.conflicts").count(len(v.Conflicts)).arg("ID", c.AttainmentID).part("Type", typeSay(c.Type)).part("Diffs", c.Say...),
			say("why.checkFirst")}, verifySay(sub, l.Verify)...)
	default:
		v.Kind = VerdictNotInSisu
		v.Say = notInSisuSay(sub, l, sent, day, now)
	}
	if v.Match != nil && len(v.Conflicts) > 0 {
		n := len(v.Conflicts)
		v.Say = append(v.Say, say("why.alsoConflicts").count(n))
	}
	return v
}

// oursOf returns the ids of attainments tied to the submission by id.
func oursOf(sub Submission, l Lookup) []string {
	var out []string
	add := func(id string) {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, a := range l.Attainments {
		if sub.SubmittedAttainmentID != "" && (a.ID == sub.SubmittedAttainmentID ||
			a.IsCourseUnit() && slices.Contains(a.AssessmentItemAttainmentIDs, sub.SubmittedAttainmentID)) {
			add(a.ID)
		}
		if l.Verify != nil && l.Verify.Code == "registered" && a.ID == l.Verify.AttainmentID {
			add(a.ID)
		}
	}
	return out
}

// judge weighs one attainment against the submission. An attainment is related when it could be
// the submission: tied to it by id, dated the day sent, or registered in the window after it.
func judge(sub Submission, a *SisuAttainment, sent Date, day RegistrationWindow, ours bool) judged {
	j := judged{a: a, ours: ours}
	j.byDate = a.AttainmentDate == sent
	j.byReg = day.Contains(a.RegistrationDate)
	j.related = ours || j.byDate || j.byReg
	if a.State == AttainmentStateFailed {
		j.say = append(j.say, say("why.diff.failed"))
	}
	if a.GradeID != sub.GradeID {
		j.say = append(j.say, say("why.diff.grade").arg("Got", a.GradeID).arg("Sent", sub.GradeID))
	}
	if ScaleFamily(a.GradeScaleID) != ScaleFamily(sub.GradeScaleID) {
		j.say = append(j.say, say("why.diff.scale").arg("Got", a.GradeScaleID).arg("Sent", sub.GradeScaleID))
	}
	if !j.byDate && !j.byReg {
		p := say("why.diff.date").date("Got", a.AttainmentDate).date("Sent", sent)
		if !day.IsZero() {
			p = say("why.diff.dateWindow").date("Got", a.AttainmentDate).date("Sent", sent).date("Registered", a.RegistrationDate).
				count(RecoveryRegistrationWindowDays).part("Window", day.say())
		}
		j.say = append(j.say, p)
	}
	return j
}

// inWindow reports whether reg is 0 to RecoveryRegistrationWindowDays days after day.
func inWindow(reg, day Date) bool {
	if reg.IsZero() || day.IsZero() {
		return false
	}
	n := reg.DaysSince(day)
	return n >= 0 && n <= RecoveryRegistrationWindowDays
}

// bestMatch picks the matching attainment that best shows the submission: a course unit
// attainment before any other, then one tied to the submission by id, then one dated the day sent
// over one recognised by its registration date, then the latest registered.
func bestMatch(all []judged) *judged {
	var best *judged
	for i := range all {
		j := &all[i]
		if !j.matches() {
			continue
		}
		if best == nil || better(*j, *best) {
			best = j
		}
	}
	return best
}

func better(x, y judged) bool {
	if c := boolRank(x.a.IsCourseUnit()) - boolRank(y.a.IsCourseUnit()); c != 0 {
		return c < 0
	}
	if c := boolRank(x.ours) - boolRank(y.ours); c != 0 {
		return c < 0
	}
	if c := boolRank(x.byDate) - boolRank(y.byDate); c != 0 {
		return c < 0
	}
	return y.a.RegistrationDate.Before(x.a.RegistrationDate)
}

// boolRank sorts true first.
func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}

// verifiedAs reports whether verify answered registered, with an attainment of type typ (any
// type but a course unit attainment when typ is "").
func verifiedAs(v *VerifyEvidence, typ string) bool {
	if v == nil || v.Code != "registered" || v.AttainmentID == "" {
		return false
	}
	if typ == "" {
		return v.AttainmentType != AttainmentCourseUnit
	}
	return v.AttainmentType == typ
}

func listed(as []SisuAttainment, id string) bool {
	return slices.ContainsFunc(as, func(a SisuAttainment) bool { return a.ID == id })
}

// ScaleFamily names a grade scale's family: the LMS sends the pass/fail scale as sis-hyv-hyl,
// Sisu spells it sis-hyl-hyv, and both are one scale.
func ScaleFamily(id string) string {
	if id == "sis-hyv-hyl" {
		return "sis-hyl-hyv"
	}
	return id
}

// say is the window's day as a Phrase: the submission's Helsinki day, and its UTC day when they differ.
func (w RegistrationWindow) say() Phrase {
	if w.HelsinkiDay == w.UTCDay {
		return say("why.window.same").date("Day", w.HelsinkiDay)
	}
	return say("why.window.split").date("Helsinki", w.HelsinkiDay).date("UTC", w.UTCDay)
}

// matchedSay is the sentence of a matching attainment, prefix choosing "holds" or "holds only",
// with how it was recognised: by id, by verify, built from ours, by date, or by registration.
func matchedSay(prefix string, j judged, sub Submission, ver *VerifyEvidence, sent Date, day RegistrationWindow) []Phrase {
	p := func(variant string) Phrase {
		return say(prefix+variant).part("Attainment", describeSay(j.a)).arg("Submitted", sub.SubmittedAttainmentID)
	}
	switch {
	case j.ours && j.a.ID == sub.SubmittedAttainmentID:
		return []Phrase{p("submitted")}
	case j.ours && ver != nil && ver.Code == "registered" && j.a.ID == ver.AttainmentID:
		return []Phrase{p("verified")}
	case j.ours:
		return []Phrase{p("builtFrom")}
	case j.byDate:
		return []Phrase{p("byDate")}
	}
	return []Phrase{p("byReg").date("Registered", j.a.RegistrationDate).count(RecoveryRegistrationWindowDays).part("Window", day.say()),
		say("why.dateMoved").date("Date", j.a.AttainmentDate).date("Sent", sent)}
}

// notInSisuSay says why nothing Sisu holds is the submission, what verify adds, and where the
// submission stands in Suotar's pending window.
func notInSisuSay(sub Submission, l Lookup, sent Date, day RegistrationWindow, now time.Time) []Phrase {
	var out []Phrase
	switch {
	case len(l.Attainments) == 0:
		out = append(out, say("why.nothingHeld"))
	case day.IsZero():
		out = append(out, say("why.noneDated").count(len(l.Attainments)).date("Sent", sent))
	default:
		out = append(out, say("why.noneDatedOrWindow").count(len(l.Attainments)).date("Sent", sent).
			arg("Days", fmt.Sprint(RecoveryRegistrationWindowDays)).part("Window", day.say()))
	}
	out = append(out, verifySay(sub, l.Verify)...)
	// Facts about Suotar's pending window only: whether a resend may follow is Decide's to say
	// (Advise), from the row as it is when the page is read, never the lookup's.
	switch {
	case l.Verify != nil && l.Verify.Code == "submissionPending":
	case sub.SubmittedAt == nil:
		out = append(out, say("why.sentUnknown"))
	case now.Before(sub.SubmittedAt.Add(SuotarPendingWindow)):
		out = append(out, say("why.lagging").span("Ago", now.Sub(*sub.SubmittedAt)).at("Until", sub.SubmittedAt.Add(SuotarPendingWindow)))
	default:
		out = append(out, say("why.pendingEnded").at("At", sub.SubmittedAt.Add(SuotarPendingWindow)))
	}
	return out
}

// verifySay says what Suotar's verify answer adds: no phrase, or one.
func verifySay(sub Submission, v *VerifyEvidence) []Phrase {
	if v == nil {
		return nil
	}
	switch v.Code {
	case "registered":
		return []Phrase{say("why.verify.registered").arg("Submitted", sub.SubmittedAttainmentID).arg("ID", v.AttainmentID).part("Type", typeSay(v.AttainmentType))}
	case "notRegistered":
		return []Phrase{say("why.verify.notRegistered").arg("Submitted", sub.SubmittedAttainmentID)}
	case "misregistered":
		return []Phrase{say("why.verify.misregistered").arg("Submitted", sub.SubmittedAttainmentID)}
	case "submissionPending":
		if v.RetryAfter != nil {
			return []Phrase{say("why.verify.pendingUntil").at("Until", *v.RetryAfter)}
		}
		return []Phrase{say("why.verify.pending")}
	}
	return nil
}

// describeSay names an attainment with its grade, scale and dates.
func describeSay(a *SisuAttainment) Phrase {
	key := "why.attainment"
	if !a.RegistrationDate.IsZero() {
		key = "why.attainmentRegistered"
	}
	return say(key).part("Type", typeSay(a.Type)).arg("ID", a.ID).arg("Grade", a.GradeID).arg("Scale", a.GradeScaleID).
		date("Date", a.AttainmentDate).date("Registered", a.RegistrationDate)
}

// typeSay names an attainment's type.
func typeSay(t string) Phrase {
	switch t {
	case AttainmentCourseUnit:
		return say("why.type.courseUnit")
	case AttainmentAssessmentItem:
		return say("why.type.assessmentItem")
	case "":
		return say("why.type.any")
	}
	return say("why.type.other").arg("Type", t)
}
