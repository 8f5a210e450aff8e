package demo

import "time"

// The scrubbed Suotar exchange an event keeps in details: {"request": item, "response": item},
// with Suotar's per-item code at /response/code. Names and e-mail addresses never appear; ids,
// student numbers and codes do, as in the LMS's scrub. The request item id is left out of both
// halves, as the event's request_item_id column holds it, and so are fields that only repeat the
// request: details are most of the events table, and the events table most of the demo.

// wrap writes {"request": request, "response": response} into the arena; a nil response is
// null (no answer came).
func (g *gen) wrap(request, response []byte) []byte {
	b := g.arena.open()
	b = append(b, `{"request":`...)
	b = append(b, request...)
	b = append(b, `,"response":`...)
	if response == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, response...)
	}
	return g.arena.close(append(b, '}'))
}

func (l *life) resolveRequest() []byte {
	s, m := l.r.c.student, l.r.c.module
	o := newObj(l.g.reqBuf[:0])
	o.str("studentNumber", s.number)
	o.str("courseCode", m.def.code)
	return o.end()
}

// resolveDetails is a resolve_enrolments exchange whose item answered wire. An enrolmentFound
// answer lists the enrolment, and the attainments Sisu already holds when the row's plan put
// one there before this look.
func (l *life) resolveDetails(wire string) []byte {
	r, m := l.r, l.r.c.module
	o := newObj(l.g.respBuf[:0])
	switch wire {
	case "enrolmentFound":
		o.str("status", "ok")
		o.str("code", wire)
		res := o.open("result")
		res.key("enrolments")
		res.b = append(res.b, '[')
		en := newObj(res.b)
		en.str("id", l.enrolmentIDOrNew())
		en.str("state", "ENROLLED")
		kind := "degree"
		if m.def.openUni || r.c.student.openUni {
			kind = "open_university"
		}
		en.str("kind", kind)
		en.str("courseUnitId", m.courseUnitID)
		rz := m.realisationAt(r.c.completionDate)
		en.str("assessmentItemId", rz.assessmentItemID)
		en.str("courseUnitRealisationId", rz.id)
		en.str("gradeScaleId", gradeScaleOf(m))
		cr := en.open("credits")
		cr.num("min", float64(m.def.credits))
		cr.num("max", float64(m.def.credits))
		en.nested(cr)
		res.b = append(en.end(), ']')
		res.key("existingAttainments")
		res.b = append(res.b, '[')
		if r.sisuAttainmentID != "" {
			at := newObj(res.b)
			at.str("id", r.sisuAttainmentID)
			at.str("type", r.sisuAttainmentType)
			at.str("state", "ATTAINED")
			at.date("attainmentDate", r.c.completionDate)
			at.str("gradeScaleId", gradeScaleOf(m))
			at.str("gradeId", gradeIDOf(r.c))
			res.b = at.end()
		}
		res.b = append(res.b, ']')
		o.nested(res)
	case "enrolmentNotFound", "enrolmentNotAccepted":
		o.str("status", "error")
		o.str("code", wire)
		er := o.open("error")
		if wire == "enrolmentNotFound" {
			er.str("message", "No enrolment was found for the student on the course.")
		} else {
			er.str("message", "The student's enrolment has not been accepted.")
		}
		o.nested(er)
	default:
		o.str("status", "error")
		o.str("code", wire)
		er := o.open("error")
		er.str("message", wireMessage(wire))
		o.nested(er)
	}
	return l.g.wrap(l.resolveRequest(), o.end())
}

func (l *life) enrolmentIDOrNew() string {
	if l.enrolmentID == "" {
		l.enrolmentID = l.g.otmID()
	}
	return l.enrolmentID
}

func (l *life) importRequest() []byte {
	r := l.r
	o := newObj(l.g.reqBuf[:0])
	o.str("studentNumber", r.studentNumber)
	o.str("courseCode", r.courseCode)
	o.str("enrolmentId", r.enrolmentID)
	o.date("attainmentDate", r.attainedAt)
	o.str("attainmentLanguage", r.lang)
	o.str("gradeScaleId", r.gradeScale)
	o.str("gradeId", r.gradeID)
	o.num("credits", float64(r.credits))
	return o.end()
}

// importDetails is an import exchange. status "" means no answer came.
func (l *life) importDetails(status, wire, submittedID, attainmentID string) []byte {
	if status == "" {
		return l.g.wrap(l.importRequest(), nil)
	}
	r := l.r
	o := newObj(l.g.respBuf[:0])
	o.str("status", status)
	o.str("code", wire)
	if status == "error" && wire != "" {
		er := o.open("error")
		er.str("message", wireMessage(wire))
		o.nested(er)
	}
	switch {
	case submittedID != "":
		res := o.open("result")
		res.str("submittedAttainmentId", submittedID)
		res.str("submittedAttainmentType", "AssessmentItemAttainment")
		o.nested(res)
	case attainmentID != "":
		res := o.open("result")
		key := "attainment"
		if wire == "notImprovedAttainment" {
			key = "previousAttainment"
		}
		at := res.open(key)
		at.str("id", attainmentID)
		at.str("type", "CourseUnitAttainment")
		at.str("state", "ATTAINED")
		at.date("attainmentDate", r.attainedAt)
		at.str("gradeScaleId", r.gradeScale)
		g := r.gradeID
		if wire == "notImprovedAttainment" && l.plan.betterGrade != "" {
			g = l.plan.betterGrade
		}
		at.str("gradeId", g)
		res.nested(at)
		o.nested(res)
	}
	return l.g.wrap(l.importRequest(), o.end())
}

func (l *life) verifyDetails(wire string, retryAfter time.Time) []byte {
	r := l.r
	req := newObj(l.g.reqBuf[:0])
	req.str("submittedAttainmentId", r.submittedAttainmentID)
	o := newObj(l.g.respBuf[:0])
	switch wire {
	case "registered":
		o.str("status", "ok")
		o.str("code", wire)
		res := o.open("result")
		at := res.open("attainment")
		if r.state == stRegistered {
			at.str("id", l.plan.cuID)
			at.str("type", "CourseUnitAttainment")
		} else {
			at.str("id", l.plan.aiID)
			at.str("type", "AssessmentItemAttainment")
		}
		res.nested(at)
		o.nested(res)
	case "submissionPending":
		o.str("status", "error")
		o.str("code", wire)
		res := o.open("result")
		res.instant("retryAfter", retryAfter)
		o.nested(res)
	default:
		o.str("status", "error")
		o.str("code", wire)
		er := o.open("error")
		er.str("message", wireMessage(wire))
		o.nested(er)
	}
	return l.g.wrap(req.end(), o.end())
}

// failureDetails is a request-level failure: no per-item answer, only the HTTP status and
// Suotar's request-level code. status 0 means nothing came back.
func (g *gen) failureDetails(request []byte, status int, wire, msg string) []byte {
	if status == 0 {
		return g.wrap(request, nil)
	}
	o := newObj(g.respBuf[:0])
	o.int("httpStatus", status)
	if wire == "" {
		o.key("code")
		o.b = append(o.b, "null"...)
	} else {
		o.str("code", wire)
	}
	o.str("message", msg)
	return g.wrap(request, o.end())
}

func wireMessage(wire string) string {
	switch wire {
	case "sisuTimeout":
		return "Sisu operation timed out; outcome is uncertain."
	case "duplicateRequestItem":
		return "Repeats an earlier item of this batch."
	case "notRegistered":
		return "No final or partial Sisu registration evidence was found for the submitted attainment id."
	case "misregistered":
		return "A previously registered attainment has been marked misregistered in Sisu."
	case "personNotFound":
		return "No Sisu person was found for the supplied student number."
	case "studyRightNotValid":
		return "The student has no study right valid on the attainment date."
	case "courseCodeNotFound":
		return "No course unit was found for the course code."
	case "courseNotAllowed":
		return "The course cannot be registered through this API yet."
	case "invalidGradeForGradeScale":
		return "The grade is not on the enrolment's grade scale."
	case "gradeScaleMismatch":
		return "Grade scale sis-hyl-hyv was sent, but the enrolment is graded on sis-0-5."
	case "invalidCredits":
		return "Credits are outside the course unit's range."
	case "sisuValidationFailed":
		return "Sisu rejected the attainment: the realisation has no teachers."
	case "attainmentQueued":
		return "Attainment queued for a later send."
	}
	return "Suotar could not process the item."
}

func gradeScaleOf(m *module) string {
	if m.def.passFail {
		return "sis-hyl-hyv"
	}
	return "sis-0-5"
}

func gradeIDOf(c *completion) string {
	if c.module.def.passFail {
		return "1"
	}
	return gradeIDs[c.grade]
}
