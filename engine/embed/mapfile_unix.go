//go:build unix

package embed

import (
	"fmt"
	"os"
	"syscall"
)

// readFileShared maps path read-only instead of reading it: a search process
// touches a few thousand of the 100k word vectors, and copying the whole 21 MB
// file cost it ~10 ms of system time. The mapping lives as long as the process.
// Data files are replaced by rename (writeFileAtomic), never rewritten in place,
// so the mapped pages stay those of the file that was opened.
func readFileShared(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() || size == 0 || size > 1<<31 {
		return os.ReadFile(path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return b, nil
}
