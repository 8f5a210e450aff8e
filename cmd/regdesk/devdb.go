package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// devCluster is the project's private PostgreSQL: a cluster of its own under .pgdata, reached
// only through a Unix socket in that folder, so it never collides with a system server or with
// another checkout on the same machine.
type devCluster struct {
	bin     string // folder of initdb, pg_ctl, postgres
	dir     string // holds data/, run/ (the socket), log
	asOwner []string
}

// devdbCommand manages the private cluster: `regdesk devdb up` starts it (creating it the first
// time) and prints the URL of its regdesk database; `down` stops it; `url` prints the URL only.
func devdbCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devdb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", cmpOr(getenv("REGDESK_PGDATA"), ".pgdata"), "folder of the private cluster")
	db := fs.String("db", "regdesk", "database to create and print the URL of")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: regdesk devdb up|down|url [-dir .pgdata] [-db regdesk]")
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		fs.Usage()
		return errUsage
	}
	verb := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	c, err := findDevCluster(*dir, getenv)
	if err != nil {
		return err
	}
	switch verb {
	case "up":
		if err := c.up(ctx, stderr); err != nil {
			return err
		}
		if err := c.ensureDatabase(ctx, *db); err != nil {
			return err
		}
		fmt.Fprintln(stdout, c.url(*db))
	case "down":
		return c.down(ctx, stderr)
	case "url":
		fmt.Fprintln(stdout, c.url(*db))
	default:
		fs.Usage()
		return errUsage
	}
	return nil
}

// findDevCluster locates the PostgreSQL server binaries and the cluster's folder. As root the
// server must run as the postgres user (initdb refuses root), so the folder must be one that user
// can reach; a checkout under a private home falls back to a folder under /var/tmp.
func findDevCluster(dir string, getenv func(string) string) (*devCluster, error) {
	bin, err := postgresBin(getenv("PG_BIN"))
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("devdb: %w", err)
	}
	c := &devCluster{bin: bin, dir: abs}
	if os.Geteuid() != 0 {
		return c, nil
	}
	if _, err := user.Lookup("postgres"); err != nil {
		return nil, errors.New("devdb: running as root needs the postgres user to own the cluster (initdb refuses root); install Debian's postgresql package or run as a normal user")
	}
	c.asOwner = []string{"runuser", "-u", "postgres", "--"}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("devdb: %w", err)
	}
	if exec.Command("runuser", "-u", "postgres", "--", "test", "-x", abs).Run() != nil {
		sum := sha256.Sum256([]byte(abs))
		c.dir = filepath.Join("/var/tmp", "regdesk-pgdata-"+hex.EncodeToString(sum[:])[:12])
	}
	return c, nil
}

// postgresBin finds initdb: PG_BIN if set, else the newest Debian cluster version, else PATH.
func postgresBin(override string) (string, error) {
	if override != "" {
		if _, err := os.Stat(filepath.Join(override, "initdb")); err != nil {
			return "", fmt.Errorf("devdb: PG_BIN=%s has no initdb", override)
		}
		return override, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return pgVersion(a) - pgVersion(b) })
	if len(found) > 0 {
		return filepath.Dir(found[len(found)-1]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("devdb: the PostgreSQL server is not installed (no initdb found).\n" +
		"  Debian/Ubuntu: sudo apt-get install -y postgresql\n" +
		"  Fedora:        sudo dnf install -y postgresql-server\n" +
		"  macOS:         brew install postgresql@15\n" +
		"or set DATABASE_URL (make run) / TEST_DATABASE_URL (make test) to a server you already have")
}

func pgVersion(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

func (c *devCluster) dataDir() string { return filepath.Join(c.dir, "data") }
func (c *devCluster) sockDir() string { return filepath.Join(c.dir, "run") }

func (c *devCluster) url(db string) string {
	q := url.Values{"host": {c.sockDir()}, "sslmode": {"disable"}}
	return "postgres://postgres@/" + db + "?" + q.Encode()
}

func (c *devCluster) cmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	full := append(slices.Clone(c.asOwner), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.CommandContext(ctx, full[0], full[1:]...)
}

// up initialises the cluster on first use and starts it unless it already runs. A file lock
// serialises two callers (make run and make test started together).
func (c *devCluster) up(ctx context.Context, log io.Writer) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("devdb: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(c.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("devdb: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("devdb: lock: %w", err)
	}
	if len(c.asOwner) > 0 {
		if out, err := exec.Command("chown", "postgres:", c.dir).CombinedOutput(); err != nil {
			return fmt.Errorf("devdb: chown %s: %v: %s", c.dir, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(log, "devdb: creating a private PostgreSQL cluster in %s\n", c.dataDir())
		out, err := c.cmd(ctx, "initdb", "-D", c.dataDir(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8").CombinedOutput()
		if err != nil {
			return fmt.Errorf("devdb: initdb: %v\n%s", err, out)
		}
	}
	if c.running(ctx) {
		return nil
	}
	if err := c.mkdirOwned(c.sockDir()); err != nil {
		return err
	}
	// fsync off: this cluster holds demo data and throwaway test databases, and cloning a test
	// database is twice as fast without it. A crashed machine may need `make db/reset`.
	opts := strings.Join([]string{
		"-c listen_addresses=''",
		"-c unix_socket_directories='" + c.sockDir() + "'",
		"-c unix_socket_permissions=0700",
		"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
		"-c max_connections=200",
		"-c shared_buffers=256MB",
	}, " ")
	fmt.Fprintf(log, "devdb: starting PostgreSQL (socket in %s)\n", c.sockDir())
	out, err := c.cmd(ctx, "pg_ctl", "-D", c.dataDir(), "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput()
	if err != nil {
		return fmt.Errorf("devdb: pg_ctl start: %v\n%s(see %s)", err, out, filepath.Join(c.dir, "postgres.log"))
	}
	return nil
}

func (c *devCluster) mkdirOwned(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("devdb: %w", err)
	}
	if len(c.asOwner) > 0 {
		if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("devdb: chown %s: %v: %s", dir, err, out)
		}
	}
	return nil
}

func (c *devCluster) running(ctx context.Context) bool {
	return c.cmd(ctx, "pg_ctl", "-D", c.dataDir(), "status").Run() == nil
}

func (c *devCluster) down(ctx context.Context, log io.Writer) error {
	if !c.running(ctx) {
		fmt.Fprintln(log, "devdb: not running")
		return nil
	}
	out, err := c.cmd(ctx, "pg_ctl", "-D", c.dataDir(), "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("devdb: pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// ensureDatabase creates db in the cluster unless it exists.
func (c *devCluster) ensureDatabase(ctx context.Context, db string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		return fmt.Errorf("devdb: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, db).Scan(&exists); err != nil {
		return fmt.Errorf("devdb: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("devdb: create database %s: %w", db, err)
	}
	return nil
}
