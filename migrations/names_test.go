package migrations

import (
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestMigrationsAreNumberedOnce: migrations apply in name order, so two branches that each took
// the next number would both apply, in an order nobody chose. Every file is NNNN_snake_name.sql,
// and the numbers run 0001, 0002, … with none taken twice and none skipped. (0011b and 0011c
// were merged with a letter before this test; a file is never renamed once applied, so a letter
// after a number already used stays allowed, and the next plain number follows it.)
func TestMigrationsAreNumberedOnce(t *testing.T) {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	valid := regexp.MustCompile(`^([0-9]{4})([a-z]?)_[a-z0-9_]+\.sql$`)
	seen := map[string]string{}
	last := 0
	for _, name := range names {
		m := valid.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s is not named NNNN_snake_name.sql", name)
			continue
		}
		if other, ok := seen[m[1]+m[2]]; ok {
			t.Errorf("%s and %s take the same number", other, name)
		}
		seen[m[1]+m[2]] = name
		n, _ := strconv.Atoi(m[1]) // four digits, so it parses
		switch {
		case m[2] != "" && n != last:
			t.Errorf("%s: a lettered migration follows its own number's file", name)
		case m[2] == "" && n != last+1:
			t.Errorf("%s: number %04d, want %04d (none skipped)", name, n, last+1)
		}
		last = n
	}
}
