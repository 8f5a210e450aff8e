package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
	"regdesk/web"
)

// The queue's bulk area leads to /bulk/jobs, which lists everyone's background bulk applies: who
// started each, on how many rows, how it stands (running with its progress, refreshing itself;
// then applied with the rows changed), and a link to the job's own page for its owner alone.
func TestBulkJobsListsRunningAndFinishedJobs(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.BulkInlineRows = 2 })
	ctx := t.Context()
	_, queue := b.get(t, "/?show=all", false)
	if hrefOf(queue, "bulk-jobs-link") != "/bulk/jobs" {
		t.Error("the queue's bulk area does not lead to the bulk jobs")
	}
	_, none := b.get(t, "/bulk/jobs", false)
	if !strings.Contains(none, `data-testid="bulk-jobs-none"`) {
		t.Errorf("with no job the page does not say so:\n%s", none)
	}
	ids := []string{b.permanent}
	for i := range 2 {
		ids = append(ids, storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Duration(4+i) * time.Hour)}))
	}
	_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"clear_flag"}, "select": {"ticked"}, "id": ids})
	rows := previewRows(body)
	// A hand action's lock on one row holds the apply at its first statement: the job runs.
	hold, err := b.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_xact_lock(29284, hashtext($1))`, b.permanent); err != nil {
		t.Fatal(err)
	}
	resp, _ := b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"Course codes fixed in the LMS"}})
	page := resp.Header.Get("Location")
	if !strings.HasPrefix(page, "/bulk/jobs/") {
		t.Fatalf("apply = %d to %q, want its progress page", resp.StatusCode, page)
	}
	id := strings.TrimPrefix(page, "/bulk/jobs/")
	if _, progress := b.get(t, page, false); hrefOf(progress, "bulk-jobs-link") != "/bulk/jobs" {
		t.Error("the job's page does not lead to the list")
	}

	// The job waits until this instance's bulk job claims it (at once: the request wakes it).
	job := regexp.MustCompile(`<tr data-testid="bulk-job" data-id="` + id + `" data-status="running" data-mine="true">`)
	for {
		resp, body = b.get(t, "/bulk/jobs", false)
		if job.MatchString(body) || ctx.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusOK || !job.MatchString(body) || !strings.Contains(body, `href="`+page+`"`) ||
		!strings.Contains(body, "Sami Support") || !strings.Contains(body, "0 of 3 rows gone through") ||
		!strings.Contains(body, `hx-get="/bulk/jobs" hx-trigger="every 3s, refresh"`) || !strings.Contains(body, `http-equiv="refresh" content="5"`) {
		t.Fatalf("the list while the job runs (%d):\n%s", resp.StatusCode, body)
	}
	if _, part := b.get(t, "/bulk/jobs", true); strings.Contains(part, "<html") || !job.MatchString(part) {
		t.Errorf("htmx's poll is not the list alone:\n%s", part)
	}
	// Another person sees the job and who started it, but not a link to its page, which is Sami's.
	_, admins := b.getWith(t, b.login(t, b.admin), "/bulk/jobs", false)
	if !strings.Contains(admins, `data-id="`+id+`" data-status="running" data-mine="false"`) || strings.Contains(admins, `href="`+page+`"`) {
		t.Errorf("the admin's list:\n%s", admins)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(body, `data-status="applied"`) {
		if ctx.Err() != nil {
			t.Fatalf("the job never finished:\n%s", body)
		}
		time.Sleep(20 * time.Millisecond)
		_, body = b.get(t, "/bulk/jobs", false)
	}
	if !strings.Contains(body, "3 of 3 rows changed.") || strings.Contains(body, `hx-trigger="every 3s`) || strings.Contains(body, `http-equiv="refresh"`) {
		t.Errorf("the finished job's row, or a list still refreshing itself:\n%s", body)
	}
}
