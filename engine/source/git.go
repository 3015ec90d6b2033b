package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// GitError reports a git command that failed, with what git said on stderr.
type GitError struct {
	Args   []string // the arguments after "git", e.g. ["ls-tree", "-r", "HEAD"]
	Stderr string   // git's stderr, trimmed and bounded
	Err    error    // the *exec.ExitError, or the context's error when cancelled
}

// Error returns "git SUBCOMMAND: ERR: STDERR".
func (e *GitError) Error() string {
	sub := "git"
	if len(e.Args) > 0 {
		sub = "git " + e.Args[0]
	}
	if e.Stderr == "" {
		return sub + ": " + e.Err.Error()
	}
	return sub + ": " + e.Err.Error() + ": " + e.Stderr
}

// Unwrap returns the underlying error.
func (e *GitError) Unwrap() error { return e.Err }

var errGitMissing = errors.New("git is not installed (no git binary in PATH)")

// gitEnv is the environment of every git process: the caller's, minus the
// variables that would point git at another repository than the one named
// with -C, plus settings that keep git from prompting, localising the
// messages this package matches, or taking the index lock (so that a status
// check never races a user's own git command).
var gitEnv = sync.OnceValue(func() []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
		"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
		"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true,
		"LC_ALL": true, "LANGUAGE": true, "GIT_OPTIONAL_LOCKS": true,
		"GIT_TERMINAL_PROMPT": true,
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	return append(env, "LC_ALL=C", "LANGUAGE=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
})

func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := append([]string{"-C", dir, "-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitEnv()
	return cmd
}

// boundedBuffer keeps the first max bytes written to it: enough of git's
// stderr for an error message, never an unbounded amount.
type boundedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string { return strings.TrimSpace(b.buf.String()) }

// runGit runs git in dir and returns its stdout.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	out, _, err := runGitStderr(ctx, dir, args...)
	return out, err
}

// runGitStderr is runGit, also returning what git said on stderr when it
// succeeded: warnings that can mean its answer is incomplete.
func runGitStderr(ctx context.Context, dir string, args ...string) ([]byte, string, error) {
	cmd := gitCommand(ctx, dir, args...)
	var stdout bytes.Buffer
	stderr := &boundedBuffer{max: 4096}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, "", gitFailure(ctx, args, err, stderr.String())
	}
	return stdout.Bytes(), stderr.String(), nil
}

// streamGit runs git in dir and calls fn with each NUL-terminated record of
// its stdout (without the NUL). The record is only valid during the call.
// An error from fn stops git and is returned as is.
func streamGit(ctx context.Context, dir string, fn func(rec []byte) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, dir, args...)
	stderr := &boundedBuffer{max: 4096}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return gitFailure(ctx, args, err, "")
	}
	if err := cmd.Start(); err != nil {
		return gitFailure(ctx, args, err, "")
	}
	br := bufio.NewReaderSize(out, 64<<10)
	var (
		fnErr  error
		long   []byte
		readEr error
	)
	for {
		rec, err := br.ReadSlice(0)
		if err == bufio.ErrBufferFull {
			long = append(long, rec...)
			continue
		}
		if err != nil {
			if err != io.EOF || len(rec) > 0 || len(long) > 0 {
				readEr = err
			}
			break
		}
		if long != nil {
			rec = append(long, rec...)
			long = nil
		}
		if fnErr = fn(rec[:len(rec)-1]); fnErr != nil {
			cancel()
			break
		}
	}
	// Drain so git never blocks on a full pipe before we wait for it.
	_, _ = io.Copy(io.Discard, br)
	waitErr := cmd.Wait()
	switch {
	case fnErr != nil:
		return fnErr
	case waitErr != nil:
		return gitFailure(ctx, args, waitErr, stderr.String())
	case readEr == io.EOF:
		return &GitError{Args: args, Err: errors.New("output ends without a NUL terminator"), Stderr: stderr.String()}
	case readEr != nil:
		return gitFailure(ctx, args, readEr, stderr.String())
	}
	return nil
}

func gitFailure(ctx context.Context, args []string, err error, stderr string) error {
	if errors.Is(err, exec.ErrNotFound) {
		return errGitMissing
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err = ctxErr
	}
	return &GitError{Args: args, Stderr: stderr, Err: err}
}

// exitCode returns git's exit status, or -1 when err is not an exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// checkRev rejects revision names that git would read as options.
func checkRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return fmt.Errorf("invalid revision %q", rev)
	}
	return nil
}
