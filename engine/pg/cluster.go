// Package pg owns spelunk's PostgreSQL side: the embedded default cluster, connecting
// with the application role and tenant, and the schema migrations.
package pg

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNoPostgres means the PostgreSQL server binaries are not installed.
var ErrNoPostgres = errors.New("PostgreSQL server binaries not found (initdb, pg_ctl, postgres): run `make setup`, or install the postgresql package (Debian/Ubuntu: apt-get install postgresql), or pass --db URL")

// socketPort is the number in the socket file name (.s.PGSQL.<port>). The embedded
// cluster listens on no TCP port at all, so this never conflicts with another server.
const socketPort = 5432

// maxSocketPath is the limit of sun_path on Linux (108 bytes with the terminating NUL).
const maxSocketPath = 107

// Cluster is a PostgreSQL data directory that spelunk runs itself, reachable only
// through a Unix socket.
type Cluster struct {
	DataDir   string // PGDATA
	SocketDir string // where the server puts .s.PGSQL.5432
	BinDir    string // initdb, pg_ctl, postgres
	// Throwaway trades durability for speed (fsync off): test clusters only.
	Throwaway bool
	// Notes receives what Start repairs (a half-created cluster it removes); nil
	// means standard error.
	Notes io.Writer

	runAs *user.User // the postgres system user when spelunk runs as root
}

// DefaultDataDir is where the embedded cluster lives: $SPELUNK_PG_DATA, else
// $XDG_DATA_HOME/spelunk/pg (~/.local/share/spelunk/pg). As root the server runs as the
// postgres user, which cannot enter /root, so root's default is /var/lib/spelunk/pg.
func DefaultDataDir() string {
	if d := os.Getenv("SPELUNK_PG_DATA"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/lib/spelunk/pg"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "spelunk", "pg")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), fmt.Sprintf("spelunk-%d", os.Getuid()), "pg")
	}
	return filepath.Join(home, ".local", "share", "spelunk", "pg")
}

// NewCluster describes the cluster in dataDir (it need not exist yet). It locates the
// server binaries and, as root, the postgres system user.
func NewCluster(dataDir string) (*Cluster, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dataDir, err)
	}
	bin, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{DataDir: abs, BinDir: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("spelunk runs as root, and PostgreSQL refuses to: it needs the postgres system user, which the postgresql package creates (run `make setup`): %w", err)
		}
		c.runAs = u
	}
	c.SocketDir = socketDirFor(abs)
	return c, nil
}

// socketDirFor keeps the socket in the data directory when the path fits in a Unix
// socket address, else in a short per-cluster directory under $XDG_RUNTIME_DIR or the
// temp dir (named after a hash of the data dir, so it is stable across runs).
func socketDirFor(dataDir string) string {
	if len(dataDir)+len("/.s.PGSQL.5432") <= maxSocketPath {
		return dataDir
	}
	sum := sha256.Sum256([]byte(dataDir))
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" || os.Geteuid() == 0 {
		base = os.TempDir()
	}
	return filepath.Join(base, "spelunk-"+hex.EncodeToString(sum[:6]))
}

// FindBinDir locates the directory holding initdb, pg_ctl and postgres: $SPELUNK_PG_BIN,
// then `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin, then $PATH.
func FindBinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("SPELUNK_PG_BIN"); d != "" {
		if has(d) {
			return d, nil
		}
		return "", fmt.Errorf("SPELUNK_PG_BIN=%s has no initdb/pg_ctl/postgres: %w", d, ErrNoPostgres)
	}
	var candidates []string
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	candidates = append(candidates, dirs...)
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	for _, d := range candidates {
		if has(d) {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// ServerVersion reports the output of `postgres --version`.
func (c *Cluster) ServerVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(c.BinDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Initialized reports whether initdb has finished in the data directory: a directory
// an interrupted initdb left is not initialised.
func (c *Cluster) Initialized() bool { return complete(c.DataDir) }

// Status describes a cluster.
type Status struct {
	DataDir     string
	SocketDir   string
	Initialized bool
	Running     bool
	PID         int
	LogFile     string
}

// Status reports whether the server runs, without changing anything.
func (c *Cluster) Status(ctx context.Context) (Status, error) {
	st := Status{DataDir: c.DataDir, SocketDir: c.SocketDir, Initialized: c.Initialized(), LogFile: c.logFile()}
	if !st.Initialized {
		return st, nil
	}
	pid, running := c.runningPID()
	st.PID, st.Running = pid, running
	return st, nil
}

// runningPID reads postmaster.pid and checks that the process is alive and that our
// socket exists: a pid file left by a crash (or a recycled pid) is not a running server.
func (c *Cluster) runningPID() (int, bool) {
	data, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return pid, false
	}
	if exited(pid) {
		return pid, false // killed, and not reaped yet: it serves nothing
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err == nil && !strings.HasPrefix(strings.TrimSpace(string(comm)), "postgres") {
		return pid, false // the pid was recycled by another program
	}
	if _, err := os.Stat(c.SocketPath()); err != nil {
		return pid, false
	}
	return pid, true
}

// exited reports a process that has ended but is not reaped yet (a zombie):
// signal 0 still reaches it. A postmaster killed in a container whose first
// process reaps late stays one for seconds, or for good, its pid file and
// socket left behind, and Start must not take it for a running server.
// Without /proc it reports false (signal 0 alone decides).
func exited(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	state := data[i+2]
	return state == 'Z' || state == 'X'
}

// SocketPath is the server's Unix socket.
func (c *Cluster) SocketPath() string {
	return filepath.Join(c.SocketDir, fmt.Sprintf(".s.PGSQL.%d", socketPort))
}

func (c *Cluster) logFile() string { return filepath.Join(c.DataDir, "server.log") }

// URL is the connection string for database db on this cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d&sslmode=disable", db, c.SocketDir, socketPort)
}

// Start initialises the data directory when needed and starts the server unless it is
// already running. Concurrent callers (two spelunk processes) serialise on a lock file
// next to the data directory: one cluster starts and both use it. A new cluster is
// built beside the data directory and renamed into place when complete; what an
// interrupted creation left is removed first, with a note. The lock files a crash left
// are removed once no backend of the dead server is left (removeStaleLocks), and
// PostgreSQL's own crash recovery does the rest.
func (c *Cluster) Start(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(c.DataDir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(c.DataDir), err)
	}
	unlock, err := lockFile(ctx, c.DataDir+".lock")
	if err != nil {
		return err
	}
	defer unlock()

	if err := c.reapHalfMade(); err != nil {
		return err
	}
	if !c.Initialized() {
		if err := c.create(ctx); err != nil {
			return err
		}
	}
	if _, running := c.runningPID(); running {
		return nil
	}
	if err := c.removeStaleLocks(ctx); err != nil {
		return err
	}
	if c.SocketDir != c.DataDir {
		if err := c.mkdirOwned(c.SocketDir); err != nil {
			return err
		}
	}
	opts := []string{
		"-k", c.SocketDir,
		"-p", strconv.Itoa(socketPort),
		"-c", "listen_addresses=",
		"-c", "unix_socket_permissions=0770",
	}
	opts = append(opts, bulkLoadSettings()...)
	if c.Throwaway {
		opts = append(opts, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := c.command(ctx, filepath.Join(c.BinDir, "pg_ctl"), "start", "-w", "-t", "60", "-s",
		"-D", c.DataDir, "-l", c.logFile(), "-o", shellJoin(opts))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("start PostgreSQL in %s: %w: %s%s", c.DataDir, err, strings.TrimSpace(string(out)), c.logTail())
	}
	return nil
}

// removeStaleLocks removes the lock files a server that is not running
// (checked by the caller) left: postmaster.pid, and the socket's lock file,
// which PostgreSQL would take for a live server's while its pid answers
// signal 0 (a killed postmaster not reaped yet). Backends a killed
// postmaster left may still be running a statement: PostgreSQL's own
// interlock is the shared memory segment postmaster.pid names, so the files
// go only once no process is attached to it (waiting up to orphanWait).
func (c *Cluster) removeStaleLocks(ctx context.Context) error {
	pidFile := filepath.Join(c.DataDir, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return nil // no pid file: nothing stale (a socket lock without one is PostgreSQL's to judge)
	}
	if err := waitDetached(ctx, shmID(data)); err != nil {
		return fmt.Errorf("start PostgreSQL in %s: %w", c.DataDir, err)
	}
	for _, f := range []string{pidFile, c.SocketPath() + ".lock"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove stale %s: %w", f, err)
		}
	}
	return nil
}

// orphanWait bounds the wait for backends a killed postmaster left.
const orphanWait = 60 * time.Second

// shmID is the id of the System V shared memory segment a postmaster.pid
// names (its seventh line: key and id), -1 when it names none.
func shmID(pidFile []byte) int {
	lines := strings.Split(string(pidFile), "\n")
	if len(lines) < 7 {
		return -1
	}
	f := strings.Fields(lines[6])
	if len(f) != 2 {
		return -1
	}
	id, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return id
}

// waitDetached waits until no process is attached to shared memory segment
// id (or it is gone), reading /proc/sysvipc/shm; without it (not Linux) it
// returns at once and PostgreSQL's own check decides.
func waitDetached(ctx context.Context, id int) error {
	if id < 0 {
		return nil
	}
	end := time.Now().Add(orphanWait)
	for {
		n := attached(id)
		if n <= 0 {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("%d processes of a server that was killed are still running (attached to its shared memory %d): stop them, or wait for them to end", n, id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// attached is how many processes are attached to shared memory segment id:
// 0 when it is gone, -1 when /proc/sysvipc/shm cannot be read.
func attached(id int) int {
	data, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		return -1
	}
	want := strconv.Itoa(id)
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 6 && f[1] == want {
			n, _ := strconv.Atoi(f[6])
			return n
		}
	}
	return 0
}

// Stop shuts the server down (fast mode: open transactions roll back). It takes the
// start lock, so it never interleaves with a Start creating or starting the cluster.
func (c *Cluster) Stop(ctx context.Context) error {
	if _, running := c.runningPID(); !running {
		return nil
	}
	unlock, err := lockFile(ctx, c.DataDir+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if _, running := c.runningPID(); !running { // stopped meanwhile by another spelunk
		return nil
	}
	cmd := c.command(ctx, filepath.Join(c.BinDir, "pg_ctl"), "stop", "-w", "-s", "-m", "fast", "-D", c.DataDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("stop PostgreSQL in %s: %w: %s", c.DataDir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mkdirOwned creates dir with mode 0700, owned by the user the server runs as.
func (c *Cluster) mkdirOwned(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("chmod %s: %w", dir, err)
	}
	if c.runAs != nil {
		uid, _ := strconv.Atoi(c.runAs.Uid)
		gid, _ := strconv.Atoi(c.runAs.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return fmt.Errorf("chown %s to postgres: %w", dir, err)
		}
	}
	return nil
}

// command runs a server binary, as the postgres user when spelunk is root.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.runAs != nil {
		uid, _ := strconv.ParseUint(c.runAs.Uid, 10, 32)
		gid, _ := strconv.ParseUint(c.runAs.Gid, 10, 32)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		cmd.Env = append(cmd.Env, "HOME="+c.runAs.HomeDir, "USER=postgres")
	}
	// pg_ctl start leaves the server running after we exit: detach it from our
	// process group so a Ctrl-C in spelunk's terminal does not reach it.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return cmd
}

func (c *Cluster) logTail() string {
	data, err := os.ReadFile(c.logFile())
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "\nserver log (" + c.logFile() + "):\n" + string(bytes.Join(lines, []byte("\n")))
}

func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " '\"\\$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}

// lockFile takes an exclusive flock on path, waiting until ctx is done.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another spelunk to start or stop the cluster (%s): %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
