// Package proccpu reads the CPU time of this process and of a PostgreSQL
// cluster from /proc, for benchmarks on a shared machine: wall time there is
// mostly the other tenants' load, CPU time much less so. Off Linux every
// reading is zero.
package proccpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Postmaster is the pid of the postmaster whose backend answers backendPID
// (SELECT pg_backend_pid()); the server must run on this machine.
func Postmaster(backendPID int) (int, error) {
	st, ok := procStat(backendPID)
	if !ok || len(st) < 2 {
		return 0, fmt.Errorf("read /proc/%d/stat: the database server is not on this machine", backendPID)
	}
	return strconv.Atoi(st[1])
}

// Cluster is the CPU time of the postmaster, of the children it has reaped
// and of its live children.
func Cluster(postmaster int) time.Duration {
	st, ok := procStat(postmaster)
	if !ok {
		return 0
	}
	total := ticks(st, 11) + ticks(st, 12) + ticks(st, 13) + ticks(st, 14)
	kids, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(postmaster), "task", strconv.Itoa(postmaster), "children"))
	for _, k := range strings.Fields(string(kids)) {
		pid, _ := strconv.Atoi(k)
		if cs, ok := procStat(pid); ok {
			total += ticks(cs, 11) + ticks(cs, 12)
		}
	}
	return total
}

// Self is this process's user and system CPU time.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoadAverage is the machine's one-minute load average.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// procStat returns the fields of /proc/pid/stat after the command name, so
// field 0 is the state and field 1 the parent's pid (proc(5) numbers minus 3).
func procStat(pid int) ([]string, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}

// ticks reads a clock-tick field of procStat's fields (USER_HZ is 100 on Linux).
func ticks(fields []string, i int) time.Duration {
	if i >= len(fields) {
		return 0
	}
	n, _ := strconv.ParseInt(fields[i], 10, 64)
	return time.Duration(n) * 10 * time.Millisecond
}
