//go:build unix

package source

import "syscall"

// openFlags open for reading without blocking (a FIFO or a device swapped
// in after the Lstat check must not hang the open) and without following a
// symbolic link swapped in the same way.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW
