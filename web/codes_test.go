package web_test

import (
	"html"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/storetest"
	"regdesk/views/i18n"
)

// shownCodes are the LMS's multi-word codes (states, error codes, admin actions and their targets,
// roles, pipeline phases): words a person should never have to read as the page's own.
func shownCodes() []string {
	var codes []string
	add := func(c string) {
		if strings.ContainsAny(c, "_-") && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	for _, s := range schedule.States() {
		add(string(s))
	}
	for _, c := range schedule.ErrorCodes() {
		add(string(c))
	}
	for _, a := range schedule.AdminActions() {
		add(string(a))
	}
	for _, k := range schedule.AdminTargets() {
		add(string(k))
	}
	for _, p := range schedule.PipelinePhases() {
		add(p)
	}
	for _, r := range schedule.AdminRoles() {
		add(r)
	}
	// The LMS's enrolment routes (credit_registration_enrolment_route) and Suotar's enrolment kinds
	// in selected_enrolment_kind, which share the Open University's code.
	add("open_university")
	add("university_of_helsinki")
	return codes
}

// asideCode is a code shown as secondary detail after its words; records shown as stored (<pre>),
// scripts and tags with their attributes are not read as words either.
var asideCode = regexp.MustCompile(`(?s)<code class="aside[ "][^>]*>.*?</code>|<pre[ >].*?</pre>|<script[ >].*?</script>|<[^>]*>`)

// codesInWords lists the codes of shownCodes that body shows as words.
func codesInWords(body string) []string {
	text := html.UnescapeString(asideCode.ReplaceAllString(body, " "))
	var found []string
	for _, c := range shownCodes() {
		if regexp.MustCompile(`(^|[^a-z_-])` + regexp.QuoteMeta(c) + `($|[^a-z_-])`).MatchString(text) {
			found = append(found, c)
		}
	}
	return found
}

// TestCodesStandBehindWords: the audit lists the LMS's own rows of every admin action the LMS can
// record, with the action, its target, the actor's role and the state change in the reader's
// words; the LMS's code stays beside them as secondary detail. The same holds on the System page
// (phases), a registration's page and the student's page, in every language.
func TestCodesStandBehindWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	lmsUser := storetest.AddLMSAdmin(t, b.store, "Liisa LMS", "liisa@lms.example")
	targets := map[schedule.AdminAction]string{
		"requeue_batch": "course", "retry_failed_for_course": "course",
		"pause_course_module": "course_module", "resume_course_module": "course_module",
		"pause_phase": "phase", "resume_phase": "phase", "run_phase_now": "phase",
		"resend_link_email": "student_number_verification_token", "override_rate_cap": "student_number_verification_token",
		"unlink_student_number": "verified_student_number", "manual_link_student_number": "verified_student_number",
		"request_enrolment_list_fetch": "roster_schedule", "dismiss_study_registry_conflict": "study_registry_student_number_conflict",
	}
	// The uncertain row went to Sisu as an Open University attainment of an assessment item.
	storetest.LMSExec(t, b.store, `UPDATE credit_registrations SET selected_enrolment_kind = 'open_university',
  submitted_attainment_type = 'AssessmentItemAttainment' WHERE id = $1`, b.uncertainOverdue)
	ids := map[string]schedule.AdminAction{}
	for i, a := range schedule.AdminActions() {
		id, kind := storetest.NewID(), targets[a]
		var target, phase, before, after any
		switch kind {
		case "":
			kind, target, before, after = "credit_registration", b.uncertainOverdue, "submission_uncertain", "ready_to_submit"
		case "phase":
			phase = "resolve-enrolments"
		default:
			target = storetest.NewID()
		}
		storetest.LMSExec(t, b.store, `INSERT INTO credit_registration_admin_actions
  (id, created_at, action, target_kind, target_id, target_phase, actor_user_id, actor_role, reason, before_state, after_state)
VALUES ($1, $2, $3::credit_registration_admin_action, $4::credit_registration_admin_action_target, $5, $6, $7, 'global_admin', 'Ticket 1234',
  $8::credit_registration_state, $9::credit_registration_state)`,
			id, testNow.Add(-time.Duration(i+1)*time.Minute), string(a), kind, target, phase, lmsUser, before, after)
		ids[id] = a
	}

	for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
		loc := i18n.For(lang)
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {string(lang)}}); resp.StatusCode >= 400 {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		_, body := b.getWith(t, admin, "/audit", false)
		rows := auditRowCells(body)
		for id, a := range ids {
			row, ok := rows[id]
			if !ok {
				t.Errorf("%s: the audit lacks the LMS's %s row", lang, a)
				continue
			}
			row = html.UnescapeString(row)
			if !strings.Contains(row, loc.T("lmsAction."+string(a))) || !strings.Contains(row, `<code class="aside">`+string(a)+`</code>`) {
				t.Errorf("%s: the LMS's %s row does not name it in words with its code beside:\n%s", lang, a, row)
			}
			if !strings.Contains(row, loc.T("lmsRole.global_admin")) {
				t.Errorf("%s: the LMS's %s row does not name the role in words", lang, a)
			}
		}
		_, reg := b.getWith(t, admin, "/registrations/"+b.uncertainOverdue, false)
		if !strings.Contains(html.UnescapeString(reg), loc.T("enrolmentKind.open_university")) || !strings.Contains(html.UnescapeString(reg), loc.T("attainmentType.AssessmentItemAttainment")) {
			t.Errorf("%s: the registration page does not name the enrolment's kind and the attainment's type in words", lang)
		}
		if !strings.Contains(body, loc.Code("lmsPhase", "resolve-enrolments")) || !strings.Contains(body, loc.Code("lmsTarget", "roster_schedule")) {
			t.Errorf("%s: the audit does not name a phase or a target in words", lang)
		}
		// The filter offers the LMS's own actions, in words, and narrows to them.
		_, only := b.getWith(t, admin, "/audit?action=transition_item", false)
		if got := slices.Sorted(maps.Keys(auditRowCells(only))); len(got) != 1 || ids[got[0]] != "transition_item" {
			t.Errorf("%s: /audit?action=transition_item lists %d rows, want the LMS's one transition_item", lang, len(got))
		}
		if !strings.Contains(html.UnescapeString(only), `<option value="transition_item" selected>`+loc.T("audit.lmsActionOption", "Action", loc.T("lmsAction.transition_item"))) {
			t.Errorf("%s: the filter does not offer the LMS's transition_item in words", lang)
		}
		for _, path := range []string{"/audit", "/system", "/registrations/" + b.uncertainOverdue, "/students/" + b.anna.ID, "/?show=all", "/overview", "/alerts", "/courses", "/registrations/" + b.permanent} {
			_, page := b.getWith(t, admin, path, false)
			if codes := codesInWords(page); len(codes) > 0 {
				t.Errorf("%s %s shows codes as words: %q", lang, path, codes)
			}
		}
	}
}

var auditRowHTML = regexp.MustCompile(`(?s)<tr id="audit-[^"]*" data-testid="audit-row" data-id="([^"]+)".*?</tr>`)

// auditRowCells maps each audit row's id to its markup.
func auditRowCells(body string) map[string]string {
	out := map[string]string{}
	for _, m := range auditRowHTML.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[0]
	}
	return out
}
