package pg

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestZombiePostmasterIsNotRunning: a postmaster killed and not reaped yet
// (in a container whose first process reaps late: a zombie, which signal 0
// still reaches), its pid file and socket left behind, is not a running
// server; Start took it for one and left the cluster down. A live process of
// the same name with the same files is.
func TestZombiePostmasterIsNotRunning(t *testing.T) {
	dir := t.TempDir()
	postgres := filepath.Join(dir, "postgres") // named so /proc/PID/comm says postgres
	data, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep:", err)
	}
	if err := os.WriteFile(postgres, data, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{DataDir: dir, SocketDir: dir}
	if err := os.WriteFile(c.SocketPath(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFile := func(pid int) {
		if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(strconv.Itoa(pid)+"\n"+dir+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live := exec.Command(postgres, "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	pidFile(live.Process.Pid)
	if _, running := c.runningPID(); !running {
		t.Fatal("a live postgres with its pid file and socket: not running")
	}
	dead := exec.Command(postgres, "0")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dead.Wait() }()
	pidFile(dead.Process.Pid)
	for i := 0; ; i++ { // not waited for: a zombie once it ends
		if _, running := c.runningPID(); !running {
			return
		}
		if i == 500 {
			t.Fatalf("process %d ended (a zombie, not reaped): still taken for a running server", dead.Process.Pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStaleLocksWaitForOrphans: the lock files of a server that is not
// running (postmaster.pid, the socket's lock, which PostgreSQL would take
// for a live server's while a killed postmaster is not reaped) are removed,
// but only once no process is attached to the shared memory segment the pid
// file names: backends a killed postmaster left may still be writing.
func TestStaleLocksWaitForOrphans(t *testing.T) {
	id, _, errno := syscall.Syscall(syscall.SYS_SHMGET, 0 /* IPC_PRIVATE */, 4096, 0o1600 /* IPC_CREAT|0600 */)
	if errno != 0 {
		t.Skip("no System V shared memory:", errno)
	}
	defer syscall.Syscall(syscall.SYS_SHMCTL, id, 0 /* IPC_RMID */, 0)
	addr, _, errno := syscall.Syscall(syscall.SYS_SHMAT, id, 0, 0)
	if errno != 0 {
		t.Fatal("shmat:", errno)
	}
	dir := t.TempDir()
	c := &Cluster{DataDir: dir, SocketDir: dir}
	pidFile, sockLock := filepath.Join(dir, "postmaster.pid"), c.SocketPath()+".lock"
	pid := "999999\n" + dir + "\n1796611732\n5432\n" + dir + "\n\n  9984858 " + strconv.Itoa(int(id)) + "\nready\n"
	for _, f := range []string{pidFile, sockLock} {
		if err := os.WriteFile(f, []byte(pid), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := c.removeStaleLocks(ctx); err == nil {
		t.Fatal("removed the lock files while a process is attached to the old server's shared memory")
	}
	for _, f := range []string{pidFile, sockLock} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s went while the segment is attached: %v", f, err)
		}
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_SHMDT, addr, 0, 0); errno != 0 {
		t.Fatal("shmdt:", errno)
	}
	if err := c.removeStaleLocks(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{pidFile, sockLock} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind once nothing is attached", f)
		}
	}
}
