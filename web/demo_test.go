package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/demo"
	"regdesk/store/storetest"
	"regdesk/web"
)

var verdictAttr = regexp.MustCompile(`data-verdict="([a-z_]+)"`)

// TestLookupsOnTheDemoDataAgreeWithItsSisu runs what make run runs: the demo data, the fake
// Suotar serving the world written with it, and lookups over real HTTP. An uncertain row whose
// import landed and shows in Sisu is found there, one that did not land is not, and a partial row
// shows only its assessment item attainment; no lookup changes a row.
func TestLookupsOnTheDemoDataAgreeWithItsSisu(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	world := demo.NewWorld()
	truth := map[string]demo.SisuTruth{}
	if _, err := demo.Write(ctx, st, demo.Config{LMS: storetest.LMS(t, st), Rows: demo.DefaultRows, Seed: 1, Now: testNow, Truth: func(s demo.SisuTruth) {
		truth[s.RegistrationID] = s
		world.Add(s)
	}}); err != nil {
		t.Fatal(err)
	}
	if err := world.Result().Validate(); err != nil {
		t.Fatalf("the demo's Sisu world is inconsistent: %v", err)
	}
	fake, err := suotarfake.New(fakeToken, suotarfake.WithWorld(world.Result()), suotarfake.WithClock(suotarfake.NewClock(testNow, 0)))
	if err != nil {
		t.Fatal(err)
	}
	fakeServer := httptest.NewServer(fake)
	t.Cleanup(fakeServer.Close)
	client, err := suotar.New(suotar.Config{BaseURL: fakeServer.URL + suotarfake.DefaultPrefix, Token: fakeToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := web.New(web.Deps{Store: st, Now: func() time.Time { return testNow }, Session: web.SessionConfig{Insecure: true}, Suotar: client})
	t.Cleanup(srv.Close)
	b := &testBundle{store: st, server: httptest.NewServer(srv.Routes())}
	t.Cleanup(b.server.Close)
	support := b.login(t, b.addAccount(t, "Sami Support", "support@example.invalid", web.RoleSupport))

	rows, _, err := st.RegistrationList(ctx, testNow, store.RegistrationFilter{Scope: store.AllCourses(),
		States: []schedule.State{schedule.StateSubmissionUncertain, schedule.StatePartiallyRegistered},
	}, nil, 200)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, row := range rows {
		before, err := st.RegistrationGet(ctx, storetest.Now(), row.ID, store.AllCourses())
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, b.server.URL+"/registrations/"+row.ID+"/lookup", nil)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, body := do(t, support, req)
		m := verdictAttr.FindStringSubmatch(body)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("lookup of %s (%s): status %d, no verdict:\n%s", row.ID, row.State, resp.StatusCode, body)
		}
		verdict := m[1]
		seen[string(row.State)+" "+verdict]++
		tr, hasTruth := truth[row.ID]
		visible := 0
		for _, a := range tr.Attainments {
			if !a.VisibleAt.After(testNow) {
				visible++
			}
		}
		switch {
		case row.State == schedule.StatePartiallyRegistered:
			if verdict != "partly_registered" {
				t.Errorf("partial row %s: verdict %s, want partly_registered (only the assessment item)", row.ID, verdict)
			}
		case !hasTruth || !tr.Landed || visible == 0:
			if verdict != "not_in_sisu" {
				t.Errorf("uncertain row %s, nothing in Sisu yet: verdict %s, want not_in_sisu", row.ID, verdict)
			}
		case tr.Conflict == "":
			if verdict != "registered" && verdict != "partly_registered" {
				t.Errorf("uncertain row %s landed and shows: verdict %s, want registered or partly_registered", row.ID, verdict)
			}
		}
		after, err := st.RegistrationGet(ctx, storetest.Now(), row.ID, store.AllCourses())
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.State != before.State {
			t.Errorf("lookup changed row %s: version %d → %d, state %s → %s", row.ID, before.Version, after.Version, before.State, after.State)
		}
	}
	for _, want := range []string{"submission_uncertain registered", "submission_uncertain not_in_sisu", "partially_registered partly_registered"} {
		if seen[want] == 0 {
			t.Errorf("the demo offers no %q lookup; saw %v", want, seen)
		}
	}
}
