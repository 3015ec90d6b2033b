//go:build unix

package index_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/source"
)

// TestSpecialFilesDoNotHangARun indexes a plain directory holding a FIFO that a
// writer keeps open (any read of it waits for ever) and, as root, a character
// device like /dev/zero (a read never ends): the run finishes, records both as
// skipped "special", and indexes the rest (issue 11.4: `spelunk index /proc` hung
// on /proc/kmsg).
func TestSpecialFilesDoNotHangARun(t *testing.T) {
	db := pgtest.Open(t)
	dir := mustReal(t, t.TempDir())
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// Held open for writing (and reading, so this open does not wait): a reader's
	// open succeeds and its read blocks, as on a pseudo file waiting for data.
	held, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	want := map[string]string{"main.go": "", "pipe": source.SkipSpecial}
	if os.Getuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dir, "zero"), syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
			t.Fatalf("mknod as root: %v", err)
		}
		want["zero"] = source.SkipSpecial
	} else {
		t.Log("not root: no device file (TestSpecialModeOfDevNull in engine/source checks /dev/null)")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := index.New(db, hashing()).Index(ctx, dir, index.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not finish within a minute: a special file was opened or read")
	}
	for path, skip := range want {
		var status, reason string
		err := db.Pool.QueryRow(context.Background(), `SELECT status, coalesce(skip_reason, '') FROM files WHERE path = $1`, path).Scan(&status, &reason)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if reason != skip || (skip == "") != (status == "indexed") {
			t.Errorf("%s: status %q, skip reason %q; want reason %q", path, status, reason, skip)
		}
	}
}
