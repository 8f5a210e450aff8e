package web

import (
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// This file puts schedule's account of a registration (its NextStep and StudentSummary, codes and
// times) into sentences in a language: for the teacher on the page, and for the student in the
// message a teacher copies. Each part is a whole sentence of the catalogue, so every language
// orders its own words.

// nextSentence says what happens next with a registration and when, for a teacher; at writes
// the times. "" when there is nothing to say (a state schedule does not know).
func nextSentence(loc *i18n.Localizer, n schedule.NextStep, at func(time.Time) string) string {
	var out []string
	add := func(key string, args ...any) {
		if key != "" && loc.Has(key) {
			out = append(out, loc.T(key, args...))
		}
	}
	if n.Situation != schedule.SituationNone {
		add("situation." + string(n.Situation))
	}
	if n.TypicalWait == schedule.TypicalWaitSisuConfirms {
		if n.Late {
			add("next.typicalLate")
		} else {
			add("next.typical")
		}
	}
	switch n.Pipeline {
	case schedule.PipelineDone:
		add("next.done")
	case schedule.PipelineResumesByItself:
		add("next.resumes")
	case schedule.PipelineLookingUpEnrolment:
		add("next.lookingUp")
	case schedule.PipelineSending:
		add("next.sending")
	case schedule.PipelineWaitsForSupport:
		add("next.waitsSupport")
	case schedule.PipelineWaitsForSetupFix:
		add("next.setupFix")
	case schedule.PipelineCheckEnrolment, schedule.PipelineLookUpEnrolment, schedule.PipelineSend, schedule.PipelineCheckSisu:
		step := map[schedule.PipelineStep]string{
			schedule.PipelineCheckEnrolment:  "checkEnrolment",
			schedule.PipelineLookUpEnrolment: "lookUpEnrolment",
			schedule.PipelineSend:            "send",
			schedule.PipelineCheckSisu:       "checkSisu",
		}[n.Pipeline]
		switch {
		case n.NextCheckAt == nil && n.Pipeline == schedule.PipelineCheckEnrolment:
			// Past the last rung of the check ladder: only a visit, a check request or a roster
			// listing wakes the row.
			add("next.checkEnrolment.off")
		case n.NextCheckAt == nil:
			add("next.nothingScheduled")
		case n.Due:
			add("next." + step + ".shortly")
		default:
			add("next."+step+".at", "At", at(*n.NextCheckAt))
		}
	}
	switch {
	case n.SupportAlerted:
		add("next.supportAlerted")
	case n.WaitsForSupport:
		add("next.waitsForSupport")
	case n.EscalatesAt != nil:
		add("next.escalates", "At", at(*n.EscalatesAt))
	}
	return strings.Join(out, " ")
}

// studentMessage is the short, friendly text a teacher pastes into a reply to the student about
// their registration for course ("" reads as "the course"), in loc's language. It names no
// internal state or code; at writes times with their date, since the student reads it later.
func studentMessage(loc *i18n.Localizer, s schedule.StudentSummary, course string, at func(time.Time) string) string {
	if strings.TrimSpace(course) == "" {
		course = loc.T("msg.theCourse")
	}
	n := s.Next
	var parts []string
	if key := "situation." + string(n.Situation) + ".student"; n.Situation != schedule.SituationNone && loc.Has(key) {
		parts = append(parts, loc.T(key, "Course", course))
	} else {
		switch s.Status {
		case schedule.StudentLookingForEnrolment, schedule.StudentSending:
			parts = append(parts, loc.T("msg.onTheirWay", "Course", course))
		case schedule.StudentWaitingForSisu:
			if n.Late {
				parts = append(parts, loc.T("msg.sentLate", "Course", course))
			} else {
				parts = append(parts, loc.T("msg.sent", "Course", course))
			}
		default:
			parts = append(parts, loc.T("msg.inProgress", "Course", course))
		}
	}
	if s.WaitsOn == schedule.WaitsOnStudent && n.Pipeline == schedule.PipelineCheckEnrolment {
		switch {
		case n.NextCheckAt == nil:
			parts = append(parts, loc.T("msg.letUsKnow"))
		case n.Due:
			parts = append(parts, loc.T("msg.checkShortly"))
		default:
			parts = append(parts, loc.T("msg.checkAt", "At", at(*n.NextCheckAt)))
		}
	}
	supportText := n.Situation == schedule.SituationGaveUp || n.Situation == schedule.SituationRetriedForAWeek ||
		n.Situation == schedule.SituationRejectedBySisu || n.Situation == schedule.SituationReversed
	if s.WaitsOn == schedule.WaitsOnSupport && !supportText {
		parts = append(parts, loc.T("msg.supportAsked"))
	}
	switch s.WaitsOn {
	case schedule.WaitsOnSisu, schedule.WaitsOnSupport, schedule.WaitsOnCourseSetup:
		parts = append(parts, loc.T("msg.nothingNeeded"))
	}
	return strings.Join(parts, " ")
}
