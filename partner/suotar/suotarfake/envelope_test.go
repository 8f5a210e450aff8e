package suotarfake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

func TestAuthorization(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		header string
		want   int
	}{
		{name: "Missing", header: "", want: http.StatusUnauthorized},
		{name: "LowercaseScheme", header: "bearer " + token, want: http.StatusUnauthorized},
		{name: "TwoSpaces", header: "Bearer  " + token, want: http.StatusUnauthorized},
		{name: "BasicScheme", header: "Basic " + token, want: http.StatusUnauthorized},
		{name: "BareToken", header: token, want: http.StatusUnauthorized},
		{name: "WrongToken", header: "Bearer suotar_other", want: http.StatusUnauthorized},
		{name: "Right", header: "Bearer " + token, want: http.StatusOK},
	}
	b := setup(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			headers := map[string]string{"Content-Type": "application/json"}
			if tc.header != "" {
				headers["Authorization"] = tc.header
			}
			for _, path := range []string{"/api/" + suotarfake.PathResolvePersons, "/control/calls"} {
				method := "POST"
				if strings.HasPrefix(path, "/control/") {
					method = "GET"
				}
				status, body := b.doWith(t, method, path, `[{"requestItemId":"a","studentNumber":"014979622"}]`, headers)
				if status != tc.want {
					t.Fatalf("%s %s = %d %s, want %d", method, path, status, body, tc.want)
				}
				if tc.want == http.StatusUnauthorized {
					if want := `{"error":{"code":"unauthorized","message":"Missing or invalid credentials."}}`; strings.TrimSpace(string(body)) != want {
						t.Errorf("%s body = %s, want %s", path, body, want)
					}
				}
			}
		})
	}
}

func TestUnknownPathsGetTheLegacyBare401(t *testing.T) {
	t.Parallel()

	b := setup(t, suotarfake.WithPrefix("/api/moocfi/"))
	tests := []struct{ method, path string }{
		{"POST", "/api/no-such-endpoint"},
		{"POST", "/api/" + suotarfake.PathResolvePersons}, // the default prefix, not this server's
		{"GET", "/api/moocfi/" + suotarfake.PathResolvePersons},
		{"POST", "/api/moocfi/open-university-product-access-tokens/resolve"}, // never implemented
		{"POST", "/"},
	}
	for _, tc := range tests {
		status, body := b.do(t, tc.method, tc.path, `[]`)
		if status != http.StatusUnauthorized || strings.TrimSpace(string(body)) != `{"error":"Unauthorized access"}` {
			t.Errorf("%s %s = %d %s, want the bare 401", tc.method, tc.path, status, body)
		}
	}
	status, body := b.do(t, "POST", "/api/moocfi/"+suotarfake.PathResolvePersons, `[{"requestItemId":"a","studentNumber":"014979622"}]`)
	if status != http.StatusOK {
		t.Errorf("POST under the configured prefix = %d %s, want 200", status, body)
	}
}

func TestBatchLimits(t *testing.T) {
	t.Parallel()

	items := func(n int, fields map[string]any) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"requestItemId": fmt.Sprint(i)}
			for k, v := range fields {
				out[i][k] = v
			}
		}
		return out
	}
	person := map[string]any{"studentNumber": nobody}
	course := map[string]any{"courseCode": "XYZ"}
	tests := []struct {
		endpoint string
		fields   map[string]any
		limit    int
	}{
		{suotarfake.PathResolvePersons, person, 1000},
		{suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": nobody, "courseCode": basics}, 1000},
		{suotarfake.PathImportAttainments, importItem(nobody, basics, "e", "2026-11-30", "sis-0-5", "4", 5), 100},
		{suotarfake.PathVerifyAttainments, map[string]any{"submittedAttainmentId": "hy-kur-x"}, 1000},
		{suotarfake.PathListByCourse, course, 50},
		{suotarfake.PathValidateCourseCodes, course, 1000},
	}
	b := setup(t)
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.endpoint, "/", "_"), func(t *testing.T) {
			t.Parallel()

			if status, body := b.do(t, "POST", "/api/"+tc.endpoint, items(tc.limit, tc.fields)); status != http.StatusOK {
				t.Errorf("%d items = %d %.200s, want 200", tc.limit, status, body)
			}
			status, body := b.do(t, "POST", "/api/"+tc.endpoint, items(tc.limit+1, tc.fields))
			want := fmt.Sprintf(`{"error":{"code":"malformedRequest","message":"A batch may contain at most %d request items."}}`, tc.limit)
			if status != http.StatusBadRequest || strings.TrimSpace(string(body)) != want {
				t.Errorf("%d items = %d %s, want 400 %s", tc.limit+1, status, body, want)
			}
		})
	}
}

func TestBodyOverFiveMegabytesIs413(t *testing.T) {
	t.Parallel()

	b := setup(t)
	big := fmt.Sprintf(`[{"requestItemId":"a","studentNumber":"%s"}]`, strings.Repeat("1", 5<<20))
	status, body := b.do(t, "POST", "/api/"+suotarfake.PathResolvePersons, big)
	if want := `{"error":{"code":"requestTooLarge","message":"Request body is too large."}}`; status != http.StatusRequestEntityTooLarge || strings.TrimSpace(string(body)) != want {
		t.Errorf("6 MB body = %d %.200s, want 413 %s", status, body, want)
	}
	small := `[{"requestItemId":"a","studentNumber":"` + strings.Repeat("1", 4<<20) + `"}]`
	if status, _ := b.do(t, "POST", "/api/"+suotarfake.PathResolvePersons, small); status != http.StatusOK {
		t.Errorf("4 MB body = %d, want 200", status)
	}
}

func TestMalformedRequestsAreRefusedWhole(t *testing.T) {
	t.Parallel()

	valid := `{"requestItemId":"a","studentNumber":"014979622","courseCode":"TKT10002","enrolmentId":"otm-3f6c1b0e-7d2a-4b8e-9c11-5a0d2e4f6a10","attainmentDate":"2026-11-30","attainmentLanguage":"fi","gradeScaleId":"sis-0-5","gradeId":"4","credits":5}`
	with := func(field, value string) string {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(valid), &m)
		if value == "" {
			delete(m, field)
		} else {
			m[field] = json.RawMessage(value)
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	tests := []struct {
		name, body, contentType, message string
	}{
		{name: "NotJSON", body: `[{"requestItemId":`, message: "Request body is not valid JSON."},
		{name: "Object", body: valid, message: "Request body must be a JSON array."},
		{name: "String", body: `"hello"`, message: "Request body must be a JSON array."},
		{name: "Null", body: `null`, message: "Request body must be a JSON array."},
		{name: "Empty", body: ``, message: "Request body is not valid JSON."},
		{name: "NoContentType", body: "[" + valid + "]", contentType: "-", message: "Request body must be a JSON array."},
		{name: "TextContentType", body: "[" + valid + "]", contentType: "text/plain", message: "Request body must be a JSON array."},
		{name: "ItemNotObject", body: `[` + valid + `, 7]`, message: "Request item 2 must be an object."},
		{name: "NoRequestItemID", body: "[" + with("requestItemId", "") + "]", message: "Request item 1: requestItemId must be a non-empty string."},
		{name: "EmptyRequestItemID", body: "[" + with("requestItemId", `""`) + "]", message: "Request item 1: requestItemId must be a non-empty string."},
		{name: "NumericRequestItemID", body: "[" + with("requestItemId", `7`) + "]", message: "Request item 1: requestItemId must be a non-empty string."},
		{name: "RepeatedRequestItemID", body: "[" + valid + "," + valid + "]", message: "Request item 2 repeats an earlier requestItemId."},
		{name: "MissingField", body: "[" + with("enrolmentId", "") + "]", message: "Request item 1: enrolmentId must be a non-empty string."},
		{name: "BlankField", body: "[" + with("studentNumber", `"  "`) + "]", message: "Request item 1: studentNumber must be a non-empty string."},
		{name: "NumericGradeID", body: "[" + with("gradeId", `4`) + "]", message: "Request item 1: gradeId must be a non-empty string."},
		{name: "NullField", body: "[" + with("courseCode", `null`) + "]", message: "Request item 1: courseCode must be a non-empty string."},
		{name: "CreditsAsString", body: "[" + with("credits", `"5"`) + "]", message: "Request item 1: credits must be a finite number."},
		{name: "CreditsMissing", body: "[" + with("credits", "") + "]", message: "Request item 1: credits must be a finite number."},
		{name: "UnreadableDate", body: "[" + with("attainmentDate", `"30.11.2026"`) + "]", message: "Request item 1: attainmentDate must be a date (YYYY-MM-DD)."},
	}
	b := setup(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			headers := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
			switch tc.contentType {
			case "-":
				delete(headers, "Content-Type")
			case "":
			default:
				headers["Content-Type"] = tc.contentType
			}
			status, body := b.doWith(t, "POST", "/api/"+suotarfake.PathImportAttainments, tc.body, headers)
			var got struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			_ = json.Unmarshal(body, &got)
			if status != http.StatusBadRequest || got.Error.Code != "malformedRequest" || got.Error.Message != tc.message {
				t.Errorf("= %d %s, want 400 malformedRequest %q", status, body, tc.message)
			}
		})
	}
	t.Cleanup(func() {
		if n := len(b.fake.World().Submissions); n != 0 {
			t.Errorf("refused batches left %d submissions, want none", n)
		}
	})
}

func TestListByCourseTakesALegacyRealisationFilter(t *testing.T) {
	t.Parallel()

	b := setup(t)
	status, body := b.do(t, "POST", "/api/"+suotarfake.PathListByCourse, `[{"requestItemId":"a","courseCode":"TKT10002","courseUnitRealisationId":""}]`)
	if status != http.StatusBadRequest {
		t.Errorf("empty courseUnitRealisationId = %d %s, want 400", status, body)
	}
	got := b.one(t, suotarfake.PathListByCourse, map[string]any{"courseCode": basics, "courseUnitRealisationId": noTeacherRealis})
	wantCode(t, got, "enrolmentsListed")
	people, _ := got.Result["people"].([]any)
	if len(people) != 1 || str(people[0].(map[string]any), "studentNumber") != carla {
		t.Errorf("people on %s = %v, want only Carla", noTeacherRealis, people)
	}
}

func TestEmptyBatchIsAnEmptyAnswer(t *testing.T) {
	t.Parallel()

	b := setup(t)
	status, body := b.do(t, "POST", "/api/"+suotarfake.PathVerifyAttainments, `[]`)
	if status != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("[] = %d %s, want 200 []", status, body)
	}
}

func TestAnswersEchoIDsInRequestOrder(t *testing.T) {
	t.Parallel()

	b := setup(t)
	got := b.batch(t, suotarfake.PathResolvePersons,
		map[string]any{"requestItemId": "z-last-alphabetically", "studentNumber": nobody},
		map[string]any{"requestItemId": "a-first", "studentNumber": aino},
		map[string]any{"requestItemId": "m-middle", "studentNumber": bertil},
	)
	wantIDs := []string{"z-last-alphabetically", "a-first", "m-middle"}
	wantCodes := []string{"personNotFound", "personFound", "personFound"}
	for i := range got {
		if got[i].RequestItemID != wantIDs[i] || got[i].Code != wantCodes[i] {
			t.Errorf("item %d = %s %s, want %s %s", i, got[i].RequestItemID, got[i].Code, wantIDs[i], wantCodes[i])
		}
	}
	if got[0].Status != "error" || got[0].Error == nil || got[0].Error.Message != "No Sisu person was found for the supplied student number." || got[0].Result != nil {
		t.Errorf("personNotFound item = %+v, want an error item with the message and no result", got[0])
	}
	if str(got[1].Result, "personId") != ainoPerson || str(got[1].Result, "firstNames") != "Aino Maria" || str(got[1].Result, "lastName") != "Virtanen" {
		t.Errorf("personFound result = %v", got[1].Result)
	}
}

func TestCallsAreLoggedWithTheirCorrelationID(t *testing.T) {
	t.Parallel()

	var logs bytes.Buffer
	b := setup(t, suotarfake.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	headers := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"X-Correlation-Id": "7d4f0c8e-1111-4222-8333-444455556666", "X-Unknown-Header": "ignored"}
	if status, body := b.doWith(t, "POST", "/api/"+suotarfake.PathResolvePersons, `[{"requestItemId":"a","studentNumber":"014979622"}]`, headers); status != http.StatusOK {
		t.Fatalf("= %d %s, want 200", status, body)
	}
	if !strings.Contains(logs.String(), "correlationId=7d4f0c8e-1111-4222-8333-444455556666") {
		t.Errorf("log = %q, want the correlation id", logs.String())
	}
	calls := b.fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("recorded %d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.CorrelationID != "7d4f0c8e-1111-4222-8333-444455556666" || c.Endpoint != suotarfake.PathResolvePersons ||
		c.Status != http.StatusOK || len(c.Items) != 1 || len(c.Codes) != 1 || c.Codes[0] != "personFound" {
		t.Errorf("recorded call = %+v", c)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()

	dangling := suotarfake.NewWorld().AddEnrolment(suotarfake.Enrolment{PersonID: "nobody", CourseUnitRealisationID: "nothing"})
	tests := []struct {
		name  string
		token string
		opt   suotarfake.Option
	}{
		{name: "NoToken", token: "", opt: suotarfake.WithPrefix("/api/")},
		{name: "NilWorld", token: token, opt: suotarfake.WithWorld(nil)},
		{name: "InconsistentWorld", token: token, opt: suotarfake.WithWorld(dangling)},
		{name: "NilClock", token: token, opt: suotarfake.WithClock(nil)},
		{name: "PrefixWithoutSlash", token: token, opt: suotarfake.WithPrefix("api")},
		{name: "PrefixUnderControl", token: token, opt: suotarfake.WithPrefix("/control/api/")},
		{name: "UnknownEndpointLimit", token: token, opt: suotarfake.WithBatchLimit("persons/resolve", 5)},
		{name: "UnknownEndpointLatency", token: token, opt: suotarfake.WithLatency("attainments/delete", time.Second)},
		{name: "BadFault", token: token, opt: suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultRequestLevel, Status: 200, Code: "x"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if _, err := suotarfake.New(tc.token, tc.opt); err == nil {
				t.Error("New succeeded, want an error")
			}
		})
	}
}

func TestUnconfiguredFakeServesAnEmptyWorld(t *testing.T) {
	t.Parallel()

	fake, err := suotarfake.New(token)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	b := &bundle{fake: fake, url: ts.URL}
	wantCode(t, b.one(t, suotarfake.PathResolvePersons, map[string]any{"studentNumber": aino}), "personNotFound")
	wantCode(t, b.one(t, suotarfake.PathValidateCourseCodes, map[string]any{"courseCode": basics}), "courseNotAllowed")
	wantCode(t, b.one(t, suotarfake.PathImportAttainments, ainoImport()), "courseNotAllowed")
}
