package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"regdesk/store"
)

func TestAPITokens(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	sami, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Sami Support", Email: "sami@example.invalid", Role: "support", By: b.by("new")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.st.APITokenCreate(ctx, sami.ID, "  ", b.now); !errors.As(err, new(*store.ValidationError)) {
		t.Errorf("a token without a name: %v", err)
	}
	token, tok, err := b.st.APITokenCreate(ctx, sami.ID, "nightly report", b.now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, store.APITokenPrefix) || tok.Name != "nightly report" {
		t.Errorf("token %q %+v", token, tok)
	}
	// At rest there is the hash only.
	stored, err := b.st.StringsForTest(ctx, `SELECT encode(token_hash, 'hex') FROM api_tokens`)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(token))
	if len(stored) != 1 || stored[0] != hex.EncodeToString(sum[:]) {
		t.Errorf("stored %v", stored)
	}
	if n, _ := b.st.StringsForTest(ctx, `SELECT id::text FROM api_tokens t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, token[len(store.APITokenPrefix):]); len(n) != 0 {
		t.Errorf("the token itself is stored")
	}
	acct, err := b.st.APITokenAccount(ctx, token, b.now.Add(time.Minute))
	if err != nil || acct.ID != sami.ID {
		t.Fatalf("authenticate: %v %v", acct.ID, err)
	}
	list, _ := b.st.APITokenList(ctx, sami.ID)
	if len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(b.now.Add(time.Minute)) {
		t.Errorf("list after use: %+v", list)
	}
	for _, bad := range []string{"", "rdk_nope", token + "x", strings.TrimPrefix(token, store.APITokenPrefix)} {
		if _, err := b.st.APITokenAccount(ctx, bad, b.now); !errors.Is(err, store.ErrTokenRefused) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// Only its owner revokes it; then it opens nothing.
	if err := b.st.APITokenRevoke(ctx, b.admin.ID, tok.ID, b.now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("someone else's revocation: %v", err)
	}
	if err := b.st.APITokenRevoke(ctx, sami.ID, tok.ID, b.now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.APITokenAccount(ctx, token, b.now.Add(3*time.Minute)); !errors.Is(err, store.ErrTokenRefused) {
		t.Errorf("a revoked token: %v", err)
	}
	// A disabled account's tokens open nothing either.
	second, _, _ := b.st.APITokenCreate(ctx, sami.ID, "second", b.now)
	if _, err := b.st.AccountSetDisabled(ctx, sami.ID, true, b.by("left")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.APITokenAccount(ctx, second, b.now); !errors.Is(err, store.ErrTokenRefused) {
		t.Errorf("a disabled account's token: %v", err)
	}
	cs := b.changes(t, sami.ID)
	if !strings.Contains(strings.Join(cs, "\n"), "api_token_revoked by Sami Support: Revoked the API token “nightly report”.") {
		t.Errorf("changes: %v", cs)
	}
}
