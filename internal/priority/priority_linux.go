// Package priority lowers the CPU priority of bulk work (a CLI index run) so
// that the searches and saves beside it on the same machine keep their cores.
package priority

import (
	"os"
	"strconv"
	"syscall"
)

// LowerProcess sets the nice value of every thread of this process to nice
// (Linux keeps one per thread; threads started later inherit their creator's).
// It only ever lowers: a thread already at nice or below is left, and a
// failure leaves the process as it was. It returns how many threads it lowered.
func LowerProcess(nice int) int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// The raw getpriority answers 20 - nice.
		if cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid); err != nil || 20-cur >= nice {
			continue
		}
		if syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice) == nil {
			n++
		}
	}
	return n
}
