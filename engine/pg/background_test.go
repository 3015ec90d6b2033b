//go:build linux

package pg_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestBackgroundPoolLowersItsBackends: the background pool's server
// processes run at pg.BackgroundNice and the open pool's stay as they were;
// its statements still run as the pool's role and tenant.
func TestBackgroundPoolLowersItsBackends(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	bg, err := db.Background(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	fg := backendPID(t, db)
	back := backendPID(t, bg)
	if !mayRenice(t, back) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this user may not renice the test cluster's backend %d", back)
		}
		t.Skipf("this user may not renice the test cluster's backend %d", back)
	}
	if got := niceOf(t, back); got != pg.BackgroundNice {
		t.Errorf("background backend %d at nice %d, want %d", back, got, pg.BackgroundNice)
	}
	if got := niceOf(t, fg); got == pg.BackgroundNice {
		t.Errorf("the open pool's backend %d was lowered too", fg)
	}
	var role, tenant string
	if err := bg.Pool.QueryRow(ctx, `SELECT current_user, current_setting('spelunk.tenant')`).Scan(&role, &tenant); err != nil {
		t.Fatal(err)
	}
	if role != pg.AppRole && db.AppRole || tenant != db.Tenant {
		t.Errorf("background pool runs as %s in tenant %s, want %s in %s", role, tenant, pg.AppRole, db.Tenant)
	}
}

func backendPID(t *testing.T, db *pg.DB) int {
	t.Helper()
	var pid int
	if err := db.Pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func niceOf(t *testing.T, pid int) int {
	t.Helper()
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, pid)
	if err != nil {
		t.Fatalf("getpriority %d: %v", pid, err)
	}
	return 20 - cur
}

// mayRenice reports whether this process may lower pid's priority: root, or
// the same user.
func mayRenice(t *testing.T, pid int) bool {
	if os.Geteuid() == 0 {
		return true
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return f[1] == strconv.Itoa(os.Geteuid())
		}
	}
	return false
}
