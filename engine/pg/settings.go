package pg

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// bulkLoadSettings size the embedded cluster for a first index of a large
// repository. With PostgreSQL's defaults (128 MB of shared buffers, 1 GB of WAL
// between checkpoints) a first index of $GOROOT/src outgrew the buffers (the
// postings key alone is 316 MB, written at random places by every batch, each
// write evicting a dirty page) and checkpointed every 20-30 s.
// The buffers take an eighth of the machine's memory, between the default and
// 512 MB, so a small machine keeps what it has.
func bulkLoadSettings() []string {
	buffers := int64(128)
	if total := memTotalMiB(); total > 0 {
		buffers = min(max(total/8, 128), 512)
	}
	return []string{
		"-c", fmt.Sprintf("shared_buffers=%dMB", buffers),
		"-c", "max_wal_size=2GB",
		"-c", "checkpoint_timeout=15min",
	}
}

// memTotalMiB is the machine's memory (Linux /proc/meminfo), 0 when unknown.
func memTotalMiB() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb); err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}
