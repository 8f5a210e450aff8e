package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
)

// TestRenderErrorStatuses checks the one error path's statuses for the store's sentinels, wrapped
// as handlers return them: a refusal that escapes an action path is the rules' answer (422),
// logged as a refusal, not a fault.
func TestRenderErrorStatuses(t *testing.T) {
	t.Parallel()
	refused := &store.RefusedError{RegistrationID: "r", Decision: schedule.Decision{Action: schedule.ActionResubmit, Refusal: schedule.RefusalAlreadySucceeded}}
	tests := []struct {
		name   string
		err    error
		status int
		want   string
	}{
		{"Refused", fmt.Errorf("apply: %w", refused), http.StatusUnprocessableEntity, "The rules do not allow that"},
		{"RefusedSentinel", store.ErrRefused, http.StatusUnprocessableEntity, "The rules do not allow that"},
		{"NotFound", fmt.Errorf("get: %w", store.ErrNotFound), http.StatusNotFound, "does not exist"},
		{"Conflict", &store.StaleError{}, http.StatusConflict, "Someone changed this"},
		{"Timeout", fmt.Errorf("list: %w", store.ErrTimeout), http.StatusServiceUnavailable, "took too long"},
		{"Fault", errors.New("boom"), http.StatusInternalServerError, "Something went wrong"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logged bytes.Buffer
			s := &Server{log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo})), now: time.Now}
			rec := httptest.NewRecorder()
			s.renderError(rec, httptest.NewRequest(http.MethodPost, "/registrations/x/actions/resubmit", nil), tc.err)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("status %d, body lacks %q; want %d", rec.Code, tc.want, tc.status)
			}
			if faulted := strings.Contains(logged.String(), "request failed"); faulted != (tc.status >= 500) {
				t.Errorf("logged as a fault: %v, want %v (%s)", faulted, tc.status >= 500, logged.String())
			}
		})
	}
}
