package pg

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// bulkLoadSettings size the embedded cluster for a first index of a large
// repository. With PostgreSQL's defaults (128 MB of shared buffers) a first
// index of $GOROOT/src outgrew the buffers (the postings key alone is 316 MB,
// written at random places by every batch, each write evicting a dirty page).
// The buffers take an eighth of the machine's memory, between the default and
// 512 MB, so a small machine keeps what it has.
//
// WAL: a first index of $GOROOT/src writes ~3 GB of it. With recycling (the
// default) every checkpoint keeps the segments it could reuse, up to
// max_wal_size, so the data directory kept 2 GB of WAL for good after one
// load (2.1 GB of 3.6 GB). Without it a checkpoint deletes what it no longer
// needs, and a timed checkpoint comes within checkpoint_timeout of the load's
// end; max_wal_size bounds the WAL a load holds meanwhile.
//
// The embedded cluster serves one machine and is never replicated nor
// archived (a copy of it is a pg_dump, docs/OPERATIONS.md), so it logs
// minimal WAL: what crash recovery needs, and nothing for the index builds,
// CLUSTER and VACUUM FULL of a first load, which write their files directly
// and sync them at commit. A first load then ends with a checkpoint
// (DB.Checkpoint), which deletes the WAL it wrote (issue 39: a first index of
// $GOROOT/src left 16 MB of WAL instead of 570 MB, and wrote 1.1 GB instead
// of 1.6 GB).
func bulkLoadSettings() []string {
	buffers := int64(128)
	if total := memTotalMiB(); total > 0 {
		buffers = min(max(total/8, 128), 512)
	}
	return []string{
		"-c", fmt.Sprintf("shared_buffers=%dMB", buffers),
		"-c", "max_wal_size=1GB",
		"-c", "checkpoint_timeout=5min",
		"-c", "wal_recycle=off",
		"-c", "wal_level=minimal",
		"-c", "max_wal_senders=0",
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
