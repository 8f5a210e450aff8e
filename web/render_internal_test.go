package web

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// The byte search agrees with decoding every rune, for every character whose UTF-8 starts with
// one of the lead bytes it looks for, alone and among other text.
func TestHasBidiControlAgreesWithDecodingEachRune(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{'a', 'é', '–', '…', '€', '\u061B', '\u061C', '\u061D', '\u2000', '\u2010'} {
		check(t, string(r))
	}
	for r := rune(0x2000); r <= 0x2FFF; r++ {
		check(t, string(r))
		check(t, "Virtanen – "+string(r)+" …")
	}
	for r := rune(0x0600); r <= 0x06FF; r++ {
		check(t, "x"+string(r)+"y")
	}
	check(t, "\xe2")        // cut short
	check(t, "ok \xe2\x80") // cut short after a lead byte
}

func check(t *testing.T, s string) {
	t.Helper()
	want := bytes.IndexFunc([]byte(s), isBidiControl) >= 0
	if got := hasBidiControl([]byte(s)); got != want {
		r, _ := utf8.DecodeRuneInString(s)
		t.Errorf("hasBidiControl(%q) = %v, want %v (first rune %U)", s, got, want, r)
	}
}
