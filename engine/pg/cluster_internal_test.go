package pg

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
