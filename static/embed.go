// Package static serves regdesk's CSS, JavaScript and the vendored htmx under content-hashed
// paths, so browsers may cache them forever and a deploy still reaches every tab.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

// FS holds the served files.
//
//go:embed css js vendor favicon.ico
var FS embed.FS

// hashes maps a file's path to the first 10 hex digits of its SHA-256, computed once at start.
var hashes = func() map[string]string {
	m := map[string]string{}
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := FS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[p] = hex.EncodeToString(sum[:])[:10]
		return nil
	})
	if err != nil {
		// The files are compiled in: failing to read them is a broken build, which no page could
		// survive (every one links the CSS by its hash).
		panic("static: hash the embedded files: " + err.Error())
	}
	return m
}()

// Path returns the URL of the file at name (e.g. "css/app.css"). It panics on a name that is not
// embedded: that is a programming error a test run catches at once.
func Path(name string) string {
	h, ok := hashes[name]
	if !ok {
		panic("static: no such file: " + name)
	}
	return "/static/" + h + "/" + name
}

// Handler serves /static/{hash}/{path}. A request whose hash is not the file's current one gets a
// 404, so a stale page never caches the wrong content under a new name.
func Handler() http.Handler {
	files := http.FileServerFS(FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/static/")
		hash, name, ok := strings.Cut(rest, "/")
		if !ok || hashes[name] == "" || hashes[name] != hash {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		files.ServeHTTP(w, r2)
	})
}

// Favicon serves the icon at /favicon.ico, where browsers ask for it unprompted.
func Favicon() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.ServeFileFS(w, r, FS, "favicon.ico")
	})
}
