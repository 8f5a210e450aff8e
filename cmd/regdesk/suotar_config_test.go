package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestServeReportsEverySuotarProblemAtOnce(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		env  map[string]string
		want []string
		not  []string
	}{
		{
			name: "URLWithoutTokenAndBadTimeout",
			env:  map[string]string{"SUOTAR_URL": "https://suotar.example/api/", "SUOTAR_TIMEOUT": "soon"},
			want: []string{"DATABASE_URL is not set", "SUOTAR_TOKEN is not set, but SUOTAR_URL is", `SUOTAR_TIMEOUT: "soon" is not a duration`},
			not:  []string{"longer than 0"},
		},
		{
			name: "TokenWithoutURL",
			env:  map[string]string{"SUOTAR_TOKEN": "suotar_secret"},
			want: []string{"SUOTAR_URL is not set, but SUOTAR_TOKEN is"},
			not:  []string{"suotar_secret"},
		},
		{
			name: "RelativeURLAndZeroTimeout",
			env:  map[string]string{"SUOTAR_URL": "suotar/api", "SUOTAR_TOKEN": "suotar_secret", "SUOTAR_TIMEOUT": "0s"},
			want: []string{`SUOTAR_URL: "suotar/api" is not an absolute http(s) URL`, "SUOTAR_TIMEOUT: must be longer than 0"},
			not:  []string{"suotar_secret"},
		},
		{
			name: "NeitherIsFine",
			env:  map[string]string{},
			want: []string{"DATABASE_URL is not set"},
			not:  []string{"SUOTAR"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			getenv := env(tc.env)
			err := run(context.Background(), []string{"serve"}, getenv, io.Discard, io.Discard)
			if err == nil {
				t.Fatal("run succeeded, want a configuration error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error holds %q:\n%v", n, err)
				}
			}
		})
	}
}

func TestSuotarConfigIsOffWhenUnset(t *testing.T) {
	t.Parallel()

	cfg := config{}
	if cfg.suotarConfigured() {
		t.Errorf("an empty config has Suotar configured")
	}
	if got := redactedURL("https://user:pw@suotar.example/api/"); strings.Contains(got, "pw") {
		t.Errorf("redactedURL kept the password: %s", got)
	}
}
