package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"regdesk/schedule"
)

// A value that is none of the choices a form offers (an action or a risk in bulk, a selection,
// a risk confirmed on one row, a language) is a 422 that names the field and the value, like
// every other bad input, and nothing is done: never accepted silently, never read as something
// else.
func TestUnknownChoicesAre422NamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"clear_flag"}, "id": {b.permanent}})
	rows := previewRows(body)
	if len(rows) != 1 {
		t.Fatalf("the preview offers %d rows, want the flagged one", len(rows))
	}
	_, page := b.get(t, "/registrations/"+b.permanent, false)
	version := versionField.FindStringSubmatch(page)
	if version == nil {
		t.Fatal("the registration page carries no version")
	}
	before := b.written(t, b.permanent)

	for _, tc := range []struct {
		name, path string
		form       url.Values
		field      string // the field's name as the message says it
		value      string
	}{
		{"BulkPreviewAction", "/bulk/preview", url.Values{"action": {"nuke"}, "id": {b.permanent}}, "action", "nuke"},
		{"BulkPreviewSelect", "/bulk/preview", url.Values{"action": {"clear_flag"}, "select": {"everything"}, "id": {b.permanent}}, "selection", "everything"},
		{"BulkApplyAction", "/bulk/apply", url.Values{"action": {"clear_flag "}, "row": rows, "reason": {"Checked"}}, "action", "clear_flag "},
		{"BulkApplyRisk", "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"Checked"}, "risk": {"harmless"}}, "risk", "harmless"},
		{"BulkApplyConfirm", "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"Checked"}, "confirm_risk": {"yes"}}, "confirmation", "yes"},
		{"ActionConfirm", "/registrations/" + b.permanent + "/actions/" + string(schedule.ActionClearFlag),
			url.Values{"version": {version[1]}, "reason": {"Checked"}, "confirm_risk": {"yes please"}}, "confirmation", "yes please"},
		{"Language", "/language", url.Values{"lang": {"de"}, "next": {"/"}}, "language", "de"},
	} {
		resp, body := b.postForm(t, b.client, tc.path, tc.form)
		text := html.UnescapeString(body)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want 422:\n%.600s", tc.name, resp.StatusCode, text)
			continue
		}
		if want := "The " + tc.field + " “" + tc.value + "” is not one regdesk offers"; !strings.Contains(text, want) {
			t.Errorf("%s: the answer does not say %q:\n%.600s", tc.name, want, text)
		}
	}
	if after := b.written(t, b.permanent); after != before {
		t.Errorf("a refused form wrote: %+v → %+v", before, after)
	}
	if _, body := b.getLang(t, b.client, "/courses", "en"); !strings.Contains(body, `<html lang="en">`) {
		t.Errorf("a refused language changed the language")
	}
}
