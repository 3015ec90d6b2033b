//go:build unix

package hooks

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens p and takes an exclusive flock on it, waiting for it when
// wait is set; without wait, a lock held elsewhere returns nil, nil. Closing
// the file releases the lock.
func lockFile(p string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err == nil {
		return f, nil
	}
	f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil
	}
	return nil, err
}

// Detach moves the process into a session of its own, away from the terminal
// git ran in: a Ctrl-C during a long rebase, a closed terminal or a tool that
// kills git's process group then leaves the background index alone.
func Detach() {
	_, _ = syscall.Setsid() // fails only for a group leader, which is detached enough
}
