package web_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views/i18n"
)

// getLang fetches path with c, its browser asking for acceptLanguage.
func (b *testBundle) getLang(t *testing.T, c *http.Client, path, acceptLanguage string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	return do(t, c, req)
}

// TestSignInPageFollowsTheBrowser: before anyone signs in, Accept-Language alone chooses, and an
// unknown language gets English; <html lang> says which.
func TestSignInPageFollowsTheBrowser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct{ header, lang, heading string }{
		{"fi-FI,fi;q=0.9,en;q=0.5", "fi", "Kirjaudu regdeskiin"},
		{"sv-FI,sv;q=0.9", "sv", "Logga in i regdesk"},
		{"de-DE", "en", "Sign in to regdesk"},
		{"", "en", "Sign in to regdesk"},
	} {
		resp, body := b.getLang(t, newClient(t), "/login", c.header)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<html lang="`+c.lang+`">`) || !strings.Contains(body, c.heading) {
			t.Errorf("Accept-Language %q: %d, want lang %s and %q", c.header, resp.StatusCode, c.lang, c.heading)
		}
	}
	// A failed sign-in answers in the browser's language too.
	req, _ := http.NewRequest(http.MethodPost, b.server.URL+"/login", strings.NewReader(url.Values{"email": {"x@example.invalid"}, "password": {"wrong password"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "sv")
	resp, body := do(t, newClient(t), req)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, i18n.For(i18n.SV).T("login.failed")) {
		t.Errorf("a failed Swedish sign-in: %d, lacks the Swedish refusal", resp.StatusCode)
	}
}

// TestLanguageSwitchIsKeptOnTheAccount: the header's switch is a plain form; the choice outlives
// the session and beats the browser's Accept-Language; a language regdesk does not speak changes
// nothing; the switch returns only to a page on this site.
func TestLanguageSwitchIsKeptOnTheAccount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, body := b.getLang(t, b.client, "/courses", "fi")
	if !strings.Contains(body, `<html lang="fi">`) || !strings.Contains(body, `data-testid="language-sv"`) {
		t.Fatalf("before choosing, a Finnish browser should get Finnish and the switch")
	}

	resp, _ := b.postForm(t, b.client, "/language", url.Values{"lang": {"sv"}, "next": {"/courses?x=1"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/courses?x=1" {
		t.Fatalf("POST /language = %d → %q, want 303 back to the page", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body = b.getLang(t, b.client, "/courses", "fi")
	if !strings.Contains(body, `<html lang="sv">`) || !strings.Contains(body, "Mina kurser") && !strings.Contains(body, "Kurser") {
		t.Errorf("after choosing Swedish a Finnish browser still gets: %.200s", body)
	}
	// A new session of the same person keeps the choice.
	_, body = b.getLang(t, b.login(t, b.support), "/courses", "en")
	if !strings.Contains(body, `<html lang="sv">`) {
		t.Errorf("the choice did not outlive the session")
	}

	resp, body = b.postForm(t, b.client, "/language", url.Values{"lang": {"de"}, "next": {"/"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), "Värdet ”de” i fältet ”språk”") {
		t.Errorf("POST /language lang=de = %d, want 422 saying so in Swedish", resp.StatusCode)
	}
	if _, body = b.getLang(t, b.client, "/courses", ""); !strings.Contains(body, `<html lang="sv">`) {
		t.Errorf("a refused choice changed the language")
	}
	resp, _ = b.postForm(t, b.client, "/language", url.Values{"lang": {"en"}, "next": {"//evil.example/"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("POST /language to another site = %d → %q, want / instead", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestEveryPageInEveryLanguage renders each screen in each language and fails for a page that
// shows an untranslated key (i18n.Missing) or a wrong <html lang>.
func TestEveryPageInEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, foreign := b.addForeignRow(t)
	admin := b.login(t, b.admin)
	teacher := b.login(t, b.teacher)
	pages := []struct {
		client *http.Client
		path   string
	}{
		{admin, "/"},
		{admin, "/?show=all"},
		{admin, "/queue/counts"},
		{admin, "/registrations/" + b.uncertainOverdue},
		{admin, "/registrations/" + b.permanent},
		{admin, "/registrations/" + foreign},
		{admin, "/students/" + b.anna.ID},
		{teacher, "/students/" + b.anna.ID},
		{admin, "/students?q=anna"},
		{admin, "/courses"},
		{teacher, "/courses"},
		{admin, "/courses/" + b.course.ID},
		{admin, "/audit"},
		{admin, "/audit?action=claim&from=2020-01-01&to=2040-01-01"},
		{admin, "/admin/accounts"},
		{admin, "/admin/accounts/" + b.admin.ID},
		{admin, "/no-such-page"},
		{newClient(t), "/login"},
	}
	for _, lang := range []string{"fi", "sv", "en"} {
		for _, c := range []*http.Client{admin, teacher} {
			if resp, _ := b.postForm(t, c, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
			}
		}
		for _, p := range pages {
			_, body := b.getLang(t, p.client, p.path, lang)
			if i := strings.Index(body, "⟦"); i >= 0 {
				t.Errorf("%s %s shows an untranslated key: %s", lang, p.path, body[i:min(len(body), i+80)])
			}
			if strings.Contains(body, "<html") && !strings.Contains(body, `<html lang="`+lang+`">`) {
				t.Errorf("%s %s: wrong <html lang>", lang, p.path)
			}
		}
	}
}

// TestStudentMessageInThreeLanguages: the message for the student comes in Finnish, Swedish and
// English, the course's language first (the language its attainment is registered in), whatever
// the teacher reads the page in; without a known course language, the teacher's.
func TestStudentMessageInThreeLanguages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	storetest.LMSExec(t, b.store, `UPDATE credit_registrations SET attainment_language = 'fi' WHERE id = $1`, b.uncertainOverdue)
	teacher := b.login(t, b.teacher)
	_, body := b.getLang(t, teacher, "/students/"+b.anna.ID, "en")
	text := html.UnescapeString(body)
	id := "message-" + b.uncertainOverdue
	for _, want := range []string{
		`<textarea id="` + id + `" lang="fi" readonly rows="3" data-testid="message-text">Kurssin Ohjelmoinnin perusteet opintopisteesi on lähetetty Sisuun, ja tarkistamme, että ne menivät perille. Tukihenkilöitämme on pyydetty selvittämään asia. Sinun ei tarvitse tehdä mitään tällä hetkellä.</textarea>`,
		`<textarea id="` + id + `-sv" lang="sv"`,
		"Dina studiepoäng för Ohjelmoinnin perusteet har skickats till Sisu, och vi kontrollerar att de har kommit fram.",
		`<textarea id="` + id + `-en" lang="en"`,
		"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, and we are checking that they arrived.",
		`<option value="fi" data-target="` + id + `" selected>suomi</option>`,
		// The page itself stays in the teacher's language.
		"It is not yet clear whether Sisu received the credit.",
		"Copy as message",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the student page lacks %s", want)
		}
	}
	// A row without a registered language starts in the reader's language.
	_, body = b.getLang(t, teacher, "/students/"+b.anna.ID, "sv")
	if !strings.Contains(body, `<textarea id="message-`+b.permanent+`" lang="sv"`) || !strings.Contains(body, "Kopiera som meddelande") {
		t.Errorf("a row without a course language should start in the reader's Swedish")
	}
}

var rawRecord = regexp.MustCompile(`(?s)<pre[ >].*?</pre>`)

// speaks fails unless body is a page in lang: one of words appears, no key is untranslated, and
// none of the English sentinel phrases, which only an untranslated page would show, is there.
func speaks(t *testing.T, lang, what, body string, words, english []string) {
	t.Helper()
	// A record shown as it is stored (a <pre> of its JSON) is data, not words.
	text := html.UnescapeString(rawRecord.ReplaceAllString(body, ""))
	if i := strings.Index(text, "⟦"); i >= 0 {
		t.Errorf("%s %s shows an untranslated key: %s", lang, what, text[i:min(len(text), i+80)])
	}
	if strings.Contains(text, "<html") && !strings.Contains(text, `<html lang="`+lang+`">`) {
		t.Errorf("%s %s: wrong <html lang>", lang, what)
	}
	found := false
	for _, w := range words {
		found = found || strings.Contains(text, w)
	}
	if !found {
		t.Errorf("%s %s has none of %q", lang, what, words)
	}
	for _, e := range english {
		if i := strings.Index(text, e); i >= 0 {
			t.Errorf("%s %s still says %q in English: …%s…", lang, what, e, text[max(0, i-60):min(len(text), i+80)])
		}
	}
}

// TestAuditAndAccountsInEveryLanguage: the audit (its filter, a bulk entry made in Finnish, the
// lookup it rested on) and the accounts pages, read in Finnish and Swedish, speak that language;
// a reason regdesk worded itself reads in the reader's language whether its row was written
// with a code (new) or as an English sentence (old).
func TestAuditAndAccountsInEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	_, preview := b.postForm(t, admin, "/bulk/preview", url.Values{"action": {"cancel"}, "select": {"ticked"}, "id": {b.permanent}})
	if resp, body := b.postForm(t, admin, "/bulk/apply", url.Values{"action": {"cancel"}, "row": previewRows(preview), "reason": {"Opiskelija perui"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("bulk apply = %d\n%s", resp.StatusCode, body)
	}
	// New shape: the reason's code in details. Old shape: only the English sentence.
	if resp, _ := b.postForm(t, admin, "/settings/tokens", url.Values{"name": {"raportti"}}); resp.StatusCode >= 400 {
		t.Fatalf("making a token = %d", resp.StatusCode)
	}
	if _, err := b.store.Pool().Exec(context.Background(), `INSERT INTO account_changes (id, created_at, account_id, actor_user_id, change, reason)
VALUES ($1, $2, $3, $3, 'api_token_revoked', 'Revoked the API token “vanha”.')`, storetest.NewID(), testNow, b.admin.ID); err != nil {
		t.Fatal(err)
	}
	english := []string{"Audit of hand actions", "Anyone", "Any action", "Entries are never edited", "Bulk:", "acted on",
		"Rested on the lookup", "Made the API token", "Revoked the API token", "When", "Who", "Details", "Older"}
	words := map[string]map[string][]string{
		"fi": {"audit": {"Toimenpiteiden muutosloki", "Peru", "Joukkotoimenpide: ", "1 rekisteröinti"}, "accounts": {"Loi API-avaimen ”raportti”", "Perui API-avaimen ”vanha”"}},
		"sv": {"audit": {"Ändringslogg över åtgärder", "Avbryt", "Massåtgärd: ", "1 registrering"}, "accounts": {"Skapade API-nyckeln ”raportti”", "Återkallade API-nyckeln ”vanha”"}},
	}
	for _, lang := range []string{"fi", "sv"} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		_, body := b.getLang(t, admin, "/audit", "")
		speaks(t, lang, "/audit", body, words[lang]["audit"][:1], english)
		for _, w := range words[lang]["audit"][1:] {
			speaks(t, lang, "/audit", body, []string{w}, nil)
		}
		_, body = b.getLang(t, admin, "/audit?action=cancel&from=2020-01-01", "")
		speaks(t, lang, "/audit filtered", body, words[lang]["audit"][:1], english)
		resp, body := b.getLang(t, admin, "/audit?from=yesterday", "")
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: a bad date = %d", lang, resp.StatusCode)
		}
		speaks(t, lang, "/audit with a bad date", body, []string{map[string]string{"fi": "ei ole päivämäärä", "sv": "är inget datum"}[lang]}, []string{"is not a date"})
		for _, path := range []string{"/admin/accounts", "/admin/accounts/" + b.admin.ID} {
			_, body = b.getLang(t, admin, path, "")
			for _, w := range words[lang]["accounts"] {
				speaks(t, lang, path, body, []string{w}, english)
			}
		}
	}
}

// TestBulkPagesInEveryLanguage previews and applies a bulk action in Finnish and Swedish: the
// bar, the preview's groups and refusals, and the result are the reader's language, with no
// English left.
func TestBulkPagesInEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	english := []string{"Would apply", "Skipped", "Preview", "Back to the queue", "Reason recorded", "Bulk action",
		"Nothing happens until", " rows)", "Not found", "Applied", "Select all"}
	for _, lang := range []string{"fi", "sv"} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		words := map[string][]string{"fi": {"Esikatselu", "Ohitetaan", "Toteutettaisiin"}, "sv": {"Förhandsgranskning", "Hoppas över", "Skulle tillämpas"}}[lang]
		_, body := b.getLang(t, admin, "/?show=all", "")
		speaks(t, lang, "the queue's bulk bar", body, []string{"Joukkotoimenpide", "Massåtgärd"}, []string{"Bulk action", "Preview for the ticked", "Select all"})
		resp, body := b.postForm(t, admin, "/bulk/preview", url.Values{"action": {"cancel"}, "select": {"ticked"},
			"id": {b.permanent, b.uncertainOverdue, b.settled, storetest.NewID()}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s preview = %d", lang, resp.StatusCode)
		}
		speaks(t, lang, "bulk preview", body, words, english)
		if lang != "fi" {
			continue
		}
		resp, body = b.postForm(t, admin, "/bulk/apply", url.Values{"action": {"cancel"}, "row": previewRows(body), "reason": {"Kurssi suljettu"}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s apply = %d", lang, resp.StatusCode)
		}
		speaks(t, lang, "bulk result", body, []string{"Valmis: Peru", "Toteutettu"}, english)
		// A mistake is told in the language too, and nothing is applied.
		resp, body = b.postForm(t, admin, "/bulk/apply", url.Values{"action": {"cancel"}, "row": {b.settled + ":1:"}, "reason": {" "}})
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s apply without a reason = %d", lang, resp.StatusCode)
		}
		speaks(t, lang, "bulk apply without a reason", body, []string{"Mitään ei toteutettu"}, append(english, "Give a reason", "Nothing was applied"))
	}
}

// TestAlertBannersInEveryLanguage: the banner an alert's link opens (on a registration, a
// student, a course and the queue, and for an alert time that cannot be used) is the reader's
// language, with no English sentence left.
func TestAlertBannersInEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	at := url.QueryEscape(testNow.Add(-3 * time.Hour).Format(time.RFC3339))
	paths := []string{"/registrations/" + b.uncertainOverdue, "/students/" + b.anna.ID, "/courses/" + b.course.ID, "/?show=all"}
	english := []string{"Since the alert", "Nothing has changed", "You were alerted", "still need", "This view without", "alert time"}
	words := map[string][]string{"fi": {"Hälytyksen", "hälytettiin", "Mikään ei ole muuttunut"}, "sv": {"Sedan larmet", "larmades", "Inget har ändrats"}}
	for _, lang := range []string{"fi", "sv"} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		for _, p := range paths {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			_, body := b.getLang(t, admin, p+sep+"alerted_at="+at, "")
			if !strings.Contains(body, `data-testid="since-alert"`) {
				t.Errorf("%s %s: no banner", lang, p)
			}
			speaks(t, lang, p+" banner", body, words[lang], english)
		}
		_, body := b.getLang(t, admin, "/registrations/"+b.uncertainOverdue+"?alerted_at=eilen", "")
		speaks(t, lang, "an unreadable alert time", body, []string{map[string]string{"fi": "hälytysaika", "sv": "larmtid"}[lang]}, english)
	}
}

// TestLookupFailuresInEveryLanguage: a lookup whose calls failed says why in the reader's
// language, from the failure's kind, both for a record written before the time limit was kept
// (old shape: kind and English message) and for one that keeps it (new shape). Even the call
// regdesk refused to send (invalidInput) is worded from the catalogue, never the English message
// recorded.
func TestLookupFailuresInEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	record := func(held, verify store.LookupCallFailure) string {
		rec := store.LookupRecord{V: store.LookupRecordVersion, Person: store.LookupPersonNotSeen,
			AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, Answer: store.AnswerUnanswered, Failure: &held},
			VerifyCall:      &store.LookupCall{Endpoint: store.EndpointVerifyAttainments, Answer: store.AnswerUnanswered, Failure: &verify},
			Verdict:         &store.LookupVerdict{Kind: schedule.VerdictCannotTell, Reason: "The call failed."}}
		raw, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	old := record(store.LookupCallFailure{Kind: "timeout", Message: "Suotar did not answer within 50 seconds; try again."},
		store.LookupCallFailure{Kind: "rejected", HTTPStatus: 418, Message: "Suotar refused the lookup (HTTP 418): tell an administrator."})
	b.addLookup(t, b.uncertainOverdue, testNow.Add(-2*time.Hour), b.admin, old)
	other := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		StateChangedAt: testNow.Add(-3 * time.Hour)})
	b.addLookup(t, other, testNow.Add(-time.Hour), b.admin, record(
		store.LookupCallFailure{Kind: "timeout", LimitMS: 50000, Message: "Suotar did not answer within 50 seconds; try again."},
		store.LookupCallFailure{Kind: "invalidInput", Message: "regdesk did not send the lookup to Suotar: no id."}))
	want := map[string][]string{
		"fi": {"Suotar ei vastannut ajoissa", "Suotar hylkäsi tarkistuksen (HTTP 418)", "Suotar ei vastannut 50 s kuluessa", "regdesk ei lähettänyt kutsua"},
		"sv": {"Suotar svarade inte i tid", "Suotar avvisade kontrollen (HTTP 418)", "Suotar svarade inte inom 50 s", "regdesk skickade inte anropet"},
	}
	for _, lang := range []string{"fi", "sv"} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		_, body := b.getLang(t, admin, "/registrations/"+b.uncertainOverdue, "")
		for _, w := range want[lang][:2] {
			speaks(t, lang, "an old-shape failed lookup", body, []string{w}, []string{"did not answer", "refused the lookup"})
		}
		_, body = b.getLang(t, admin, "/registrations/"+other, "")
		for _, w := range want[lang][2:] {
			speaks(t, lang, "a new-shape failed lookup", body, []string{w}, []string{"did not answer within", "did not send the lookup"})
		}
	}
}

// TestLookupVerdictOldAndNewShape: a verdict recorded with its phrases (new shape) gives its
// reason and its differences in the reader's language; one recorded before (old shape: the
// English reason and differences alone) still reads, in the English it was written in.
func TestLookupVerdictOldAndNewShape(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	attained, submitted := testNow.Add(-72*time.Hour), testNow.Add(-48*time.Hour)
	sub := schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: &attained, SubmittedAt: &submitted}
	held := schedule.SisuAttainment{ID: "otm-cu", Type: schedule.AttainmentCourseUnit, GradeScaleID: "sis-0-5", GradeID: "3",
		AttainmentDate: schedule.HelsinkiDate(attained), RegistrationDate: schedule.HelsinkiDate(testNow)}
	v := schedule.Judge(sub, schedule.Lookup{Attainments: []schedule.SisuAttainment{held}}, testNow)
	if v.Kind != schedule.VerdictConflicting || len(v.Conflicts) != 1 {
		t.Fatalf("the fixture's verdict: %+v", v)
	}
	// What regdesk wrote for this verdict before it kept phrases: English only.
	const oldReason = "Sisu holds 1 attainment like this submission that does not match it: course unit attainment otm-cu has grade 3, regdesk sent 4. " +
		"Check in Sisu which is right before doing anything: resubmitting may register the credit twice."
	record := func(withPhrases bool) string {
		verdict := &store.LookupVerdict{Kind: v.Kind, Conflicts: []store.LookupConflict{{ID: "otm-cu"}}}
		if withPhrases {
			verdict.Say, verdict.Conflicts[0].Say = v.Say, v.Conflicts[0].Say
		} else {
			verdict.Reason, verdict.Conflicts[0].Differences = oldReason, []string{"grade 3, regdesk sent 4"}
		}
		rec := store.LookupRecord{V: store.LookupRecordVersion, Person: store.LookupPersonNotSeen,
			AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, Answer: store.AnswerAnswered},
			Attainments: []store.LookupAttainment{{ID: "otm-cu", Type: held.Type, GradeScaleID: "sis-0-5", GradeID: "3",
				AttainmentDate: held.AttainmentDate.String(), RegistrationDate: held.RegistrationDate.String()}},
			Verdict: verdict}
		raw, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	b.addLookup(t, b.uncertainOverdue, testNow.Add(-time.Hour), b.admin, record(false))
	other := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		StateChangedAt: testNow.Add(-3 * time.Hour)})
	b.addLookup(t, other, testNow.Add(-time.Hour), b.admin, record(true))
	for lang, words := range map[string][]string{
		"fi": {"tätä lähetystä muistuttava opintosuoritus", "arvosana 3, regdesk lähetti 4"},
		"sv": {"som liknar den här inskickningen", "vitsord 3, regdesk skickade 4"},
	} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		_, body := b.getLang(t, admin, "/registrations/"+other, "")
		for _, w := range words {
			speaks(t, lang, "a new-shape verdict", body, []string{w}, []string{"like this submission", "regdesk sent"})
		}
		_, body = b.getLang(t, admin, "/registrations/"+b.uncertainOverdue, "")
		if text := html.UnescapeString(rawRecord.ReplaceAllString(body, "")); !strings.Contains(text, oldReason) || !strings.Contains(text, "grade 3, regdesk sent 4") {
			t.Errorf("%s: an old-shape verdict no longer shows the reason it was recorded with", lang)
		}
	}
}
