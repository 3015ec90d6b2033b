package pg

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// lowerBackend sets the nice value of conn's server process to BackgroundNice
// when that process is on this machine: the connection is over a Unix socket
// or loopback, and the process with the backend's pid is a PostgreSQL backend
// (its title starts "postgres:"), so no other process is touched when the pid
// belongs to a remote server. Failing that, or without permission (another
// user's server), it does nothing: the work runs at normal priority.
func lowerBackend(conn *pgx.Conn) {
	pid := int(conn.PgConn().PID())
	if pid <= 0 || !localConn(conn.PgConn().Conn().RemoteAddr()) {
		return
	}
	title, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !bytes.HasPrefix(title, []byte("postgres:")) {
		return
	}
	if cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, pid); err == nil && 20-cur >= BackgroundNice {
		return // already as low (the raw syscall answers 20 - nice)
	}
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, BackgroundNice)
}

func localConn(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	}
	return false
}
