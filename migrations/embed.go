// Package migrations holds the forward-only SQL migrations of the regdesk schema.
//
// Files are named NNNN_snake_name.sql and applied in name order by store.Migrate. A merged file is
// never edited: fix forward with a new one.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
