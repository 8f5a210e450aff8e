package web

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// exportFolder is where this instance writes its long exports' files: a folder of its own inside
// a folder of regdesk's own (Deps.ExportDir), never loose in the system's temporary directory.
// The files hold names and student numbers, and a process killed (SIGKILL, the OOM killer, a
// power cut) cannot delete them: so every instance sweeps, as it starts, the folders of the
// instances that are no longer running, and deletes its own as it stops.
//
// Several instances may share the folder (two on one machine, a restart that overlaps the old
// process). Each holds an exclusive flock on its folder's lock file, <id>.lock beside <id>/, for
// as long as it runs; the kernel releases it when the process ends, however it ends. So a lock
// another instance can take is a dead instance's, and its folder is swept; a running instance's
// is never touched.
type exportFolder struct {
	root, dir string
	lock      *os.File
}

// DefaultExportDir is where long exports are written when Deps.ExportDir does not say.
func DefaultExportDir() string { return filepath.Join(os.TempDir(), "regdesk-exports") }

// openExportFolder makes root (readable by this user alone) when it is missing, sweeps what dead
// instances left in it, and makes the folder of this instance, id.
func openExportFolder(root, id string) (*exportFolder, int, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, 0, fmt.Errorf("export folder %s: %w", root, err)
	}
	// The lock first, then the folder: a folder without its lock file is nobody's.
	lockPath := filepath.Join(root, id+".lock")
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("export folder lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		_ = os.Remove(lockPath)
		return nil, 0, fmt.Errorf("export folder lock %s: %w", lockPath, err)
	}
	swept := sweepExportFolders(root)
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		lock.Close()
		_ = os.Remove(lockPath)
		return nil, swept, fmt.Errorf("export folder: %w", err)
	}
	return &exportFolder{root: root, dir: dir, lock: lock}, swept, nil
}

// sweepExportFolders deletes from root what no running instance holds: the folder of every lock
// that can be taken (its instance ended without deleting it), and an instance's folder without a
// lock file. Only names an instance gives are touched, so a root shared by mistake keeps the
// rest. It returns how many files it deleted.
func sweepExportFolders(root string) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !instanceName.MatchString(name) {
			continue
		}
		if id, ok := strings.CutSuffix(name, ".lock"); ok {
			lockPath := filepath.Join(root, name)
			f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
			if err != nil {
				continue
			}
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				removed += removeCounting(filepath.Join(root, id))
				_ = os.Remove(lockPath)
			}
			f.Close()
			continue
		}
		// A folder is created after its lock file: with no lock file now, it is nobody's.
		if _, err := os.Stat(filepath.Join(root, name+".lock")); errors.Is(err, fs.ErrNotExist) {
			removed += removeCounting(filepath.Join(root, name))
		}
	}
	return removed
}

// instanceName matches what an instance names its folder and lock: eight hex digits
// (Server.instance), the lock with ".lock".
var instanceName = regexp.MustCompile(`^[0-9a-f]{8}(\.lock)?$`)

// removeCounting deletes path and everything under it, and says how many files went.
func removeCounting(path string) int {
	n := 0
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	_ = os.RemoveAll(path)
	return n
}

// close deletes this instance's folder and everything in it, and lets its lock go.
func (f *exportFolder) close() {
	if f == nil {
		return
	}
	_ = os.RemoveAll(f.dir)
	_ = os.Remove(f.lock.Name())
	f.lock.Close()
}
