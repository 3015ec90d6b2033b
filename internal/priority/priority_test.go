//go:build linux

package priority

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestLowerProcessLowersEveryThread runs the test binary as a child that
// lowers itself (the parent's priority must not change for the rest of the
// tests) and checks the nice value of each of the child's threads.
func TestLowerProcessLowersEveryThread(t *testing.T) {
	if os.Getenv("PRIORITY_CHILD") == "1" {
		LowerProcess(7)
		tasks, _ := os.ReadDir("/proc/self/task")
		var nices []string
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
			if err != nil {
				t.Fatal(err)
			}
			nices = append(nices, strconv.Itoa(20-cur))
		}
		os.Stdout.WriteString("nices " + strings.Join(nices, ",") + "\n")
		if LowerProcess(7) != 0 {
			t.Error("a second LowerProcess(7) lowered threads again")
		}
		if LowerProcess(3) != 0 {
			t.Error("LowerProcess(3) raised threads at nice 7")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLowerProcessLowersEveryThread$", "-test.v")
	cmd.Env = append(os.Environ(), "PRIORITY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	i := strings.Index(string(out), "nices ")
	if i < 0 {
		t.Fatalf("child printed no nice values:\n%s", out)
	}
	line := strings.Fields(string(out)[i:])[1]
	for _, n := range strings.Split(line, ",") {
		if v, err := strconv.Atoi(n); err != nil || v < 7 { // a parent already nicer passes its value on
			t.Errorf("a thread at nice %s after LowerProcess(7): %s", n, line)
		}
	}
}
