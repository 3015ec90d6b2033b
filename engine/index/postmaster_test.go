package index_test

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// ownServer is a PostgreSQL cluster of one test's own, whose server the
// test crashes under a run (the shared test server is never stopped).
type ownServer struct {
	c   *pg.Cluster
	url string
}

// startOwnServer starts a throwaway cluster with a spelunk database.
func startOwnServer(t *testing.T) *ownServer {
	t.Helper()
	c := pgtest.StartedCluster(t)
	return &ownServer{c: c, url: c.URL("spelunk")}
}

// crashKinds are the two ways a server dies under a run: its postmaster
// killed (SIGKILL), or PostgreSQL's immediate shutdown (SIGQUIT).
var crashKinds = []syscall.Signal{syscall.SIGKILL, syscall.SIGQUIT}

// crashName names a crash in reports.
func crashName(how syscall.Signal) string {
	if how == syscall.SIGKILL {
		return "postmaster SIGKILL"
	}
	return "immediate shutdown"
}

// crashUnder runs run, crashes the server after delay unless the run ended
// first, waits for the run to end (it is stopped by stop if it has not
// within two minutes), and with restart starts the server again (crash
// recovery; else the next spelunk starts it: selfStartCmd); landed says
// whether the crash came before the run ended, out is what the run printed,
// for errors. A run that fails before the crash is an error.
func (s *ownServer) crashUnder(how syscall.Signal, delay time.Duration, restart bool, run func() error, stop func(), out fmt.Stringer) (bool, error) {
	done := make(chan error, 1)
	go func() { done <- run() }()
	select {
	case err := <-done:
		if err != nil {
			return false, fmt.Errorf("run before the crash: %v\n%s", err, out)
		}
		return false, nil
	case <-time.After(delay):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	crashErr := pgtest.Crash(ctx, s.c, how)
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(2 * time.Minute):
		stop()
		<-done
		return true, fmt.Errorf("the run went on 2 minutes after the server's %s\n%s", crashName(how), out)
	}
	if crashErr != nil {
		return false, crashErr
	}
	if !restart {
		return runErr != nil, nil
	}
	if err := pgtest.Restart(ctx, s.c); err != nil {
		return false, err
	}
	return runErr != nil, nil
}

// crashProcess starts `spelunk index` on the server and crashes the server
// under it after delay (crashUnder).
func (s *ownServer) crashProcess(bin, root string, workingTree bool, how syscall.Signal, delay time.Duration, restart bool) (bool, error) {
	cmd := indexCmd(bin, s.url, root, workingTree)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return false, err
	}
	return s.crashUnder(how, delay, restart, cmd.Wait, func() { _ = cmd.Process.Kill() }, out)
}

// selfStartCmd is `spelunk index root` with no --db: its embedded cluster is
// s's, so a server left down by a crash is started by spelunk itself (a
// stale pid file, a postmaster not reaped yet, crash recovery), as a user's
// embedded cluster is.
func (s *ownServer) selfStartCmd(bin, root string, workingTree bool) *exec.Cmd {
	cmd := indexCmd(bin, s.url, root, workingTree)
	cmd.Args = slices.DeleteFunc(cmd.Args, func(a string) bool { return a == "--db" || a == s.url })
	cmd.Env = append(cmd.Env, "SPELUNK_PG_DATA="+s.c.DataDir)
	return cmd
}
