package pg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// completeMarker is written into a new cluster once initdb has finished, before the
// cluster is renamed into place: a data dir without it was never completed.
const completeMarker = "spelunk-cluster-complete"

// creatingDir is where initdb builds a new cluster. Only the holder of the start lock
// writes there, so one found by the next lock holder was left by an interrupted run.
func (c *Cluster) creatingDir() string { return c.DataDir + ".creating" }

func (c *Cluster) notes() io.Writer {
	if c.Notes != nil {
		return c.Notes
	}
	return os.Stderr
}

// create runs initdb in the temporary directory and renames the result into place,
// so that an interrupted first run never leaves a data dir that looks usable.
func (c *Cluster) create(ctx context.Context) error {
	tmp := c.creatingDir()
	if err := c.mkdirOwned(tmp); err != nil {
		return err
	}
	// WAL segments of 4 MB instead of 16: after a first load's checkpoint the
	// cluster keeps only its current segment (bulkLoadSettings), which with
	// the default size was 16 MB of every data directory (issue 39: the data
	// directory right after an index, WAL included, against zoekt's index).
	args := []string{"-D", tmp, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-instructions",
		"--wal-segsize=4"}
	if c.Throwaway {
		args = append(args, "--no-sync")
	}
	cmd := c.command(ctx, filepath.Join(c.BinDir, "initdb"), args...)
	// On Ctrl-C kill initdb's whole process group: killing initdb alone leaves its
	// bootstrap backend running in the directory.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb %s: %w: %s", tmp, err, strings.TrimSpace(string(out)))
	}
	if err := c.writeMarker(tmp); err != nil {
		return err
	}
	// An empty data dir (made by hand, or by an older spelunk killed before initdb
	// wrote anything) is replaced; rename refuses a non-empty one.
	_ = os.Remove(c.DataDir)
	if err := os.Rename(tmp, c.DataDir); err != nil {
		return fmt.Errorf("move the new cluster %s into place: %w", tmp, err)
	}
	return syncDir(filepath.Dir(c.DataDir))
}

func (c *Cluster) writeMarker(dir string) error {
	path := filepath.Join(dir, completeMarker)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("mark cluster complete: %w", err)
	}
	_, err = f.WriteString("initdb finished " + time.Now().UTC().Format(time.RFC3339) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && c.runAs != nil {
		uid, _ := strconv.Atoi(c.runAs.Uid)
		gid, _ := strconv.Atoi(c.runAs.Gid)
		err = os.Chown(path, uid, gid)
	}
	if err != nil {
		return fmt.Errorf("mark cluster complete %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// complete reports whether dir holds a finished cluster: the marker, or for a
// cluster made before the marker existed, a server has run there (server.log) or
// initdb created all three of its databases.
func complete(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err == nil {
		return true
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "server.log")); err == nil {
		return true
	}
	entries, err := os.ReadDir(filepath.Join(dir, "base"))
	return err == nil && len(entries) >= 3
}

// initdbEntries are the names initdb creates in a data directory. A data dir that
// holds anything else is not a half-made cluster, and spelunk does not delete it.
var initdbEntries = map[string]bool{
	"PG_VERSION": true, "base": true, "global": true, "pg_wal": true, "pg_xact": true,
	"pg_commit_ts": true, "pg_dynshmem": true, "pg_logical": true, "pg_multixact": true,
	"pg_notify": true, "pg_replslot": true, "pg_serial": true, "pg_snapshots": true,
	"pg_stat": true, "pg_stat_tmp": true, "pg_subtrans": true, "pg_tblspc": true,
	"pg_twophase": true, "postgresql.conf": true, "postgresql.auto.conf": true,
	"pg_hba.conf": true, "pg_ident.conf": true, "postmaster.pid": true, "postmaster.opts": true,
}

// reapHalfMade removes what an interrupted creation left: the temporary directory,
// and a data dir whose initdb never finished (an older spelunk ran initdb in place),
// killing first any initdb or bootstrap backend still running there, since an orphan
// keeps the directory busy. Start calls it under the lock, so no live creation is
// disturbed.
func (c *Cluster) reapHalfMade() error {
	if err := c.reap(c.creatingDir()); err != nil {
		return err
	}
	entries, err := os.ReadDir(c.DataDir)
	if err != nil || len(entries) == 0 || complete(c.DataDir) {
		return nil // absent, empty (create replaces it) or usable
	}
	for _, e := range entries {
		if !initdbEntries[e.Name()] {
			return fmt.Errorf("data dir %s holds no complete PostgreSQL cluster but has other files (%s): move it away or pass another --data-dir / SPELUNK_PG_DATA", c.DataDir, e.Name())
		}
	}
	return c.reap(c.DataDir)
}

func (c *Cluster) reap(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	fmt.Fprintf(c.notes(), "spelunk: removing a half-created cluster at %s left by an interrupted run\n", dir)
	// A process of the interrupted creation can still be starting when the
	// first pass lists them, and write a file while the directory goes: kill and
	// remove again, a few times, before giving up.
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = killProcessesIn(dir); err != nil {
			return err
		}
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	return fmt.Errorf("remove the half-created cluster %s: %w (remove it by hand, then retry)", dir, err)
}

// killProcessesIn kills every process working in dir: initdb names it with -D, and
// its bootstrap backend runs with dir as its working directory.
func killProcessesIn(dir string) error {
	pids := processesIn(dir)
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stop process %d still working in the half-created cluster %s: %w (kill it, then retry)", pid, dir, err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d still works in the half-created cluster %s after SIGKILL: stop it, then retry", pid, dir)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

func processesIn(dir string) []int {
	resolved := dir // the kernel reports working directories with symlinks resolved
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		resolved = r
	}
	procs, _ := os.ReadDir("/proc")
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", p.Name(), "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		inDir := cwd == resolved || strings.HasPrefix(cwd, resolved+"/")
		for _, arg := range strings.Split(string(cmdline), "\x00") {
			inDir = inDir || arg == dir
		}
		if inDir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid runs: a zombie waiting for its parent does not.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name, which may contain spaces.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
}
