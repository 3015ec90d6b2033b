package webhook

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spelunkhq/spelunk/engine/source"
)

// clone is the server's own clone of the shared remote: origin is the remote,
// and the branch checked out is the one the index follows.
type clone struct {
	root   string // work tree top level, symlinks resolved: the index's repository key
	branch string
}

// git runs git in dir and returns its trimmed stdout; a failure carries what git
// said on stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// gitEnv keeps git on the clone named with -C (no inherited GIT_DIR and the
// like), never prompting for credentials (a server has no one to answer), in
// English, so its messages read the same in every log, and without the webhook
// secret.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_TERMINAL_PROMPT", "LC_ALL", "LANGUAGE", SecretEnv:
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "LANGUAGE=C")
}

// openClone checks that dir is a work tree on a branch with an origin remote.
// The root comes from engine/source, as the indexer computes it, so the jobs
// write under the very repository key that spelunk search --repo DIR reads.
func openClone(ctx context.Context, dir string) (clone, error) {
	repo, err := source.Open(ctx, dir)
	if err != nil {
		return clone{}, fmt.Errorf("webhook repository: %w", err)
	}
	repo.Close()
	switch {
	case !repo.IsGit:
		return clone{}, fmt.Errorf("webhook repository %s is not a git clone: clone the shared repository there (git clone URL DIR)", repo.Root)
	case repo.Branch == "":
		return clone{}, fmt.Errorf("webhook repository %s: HEAD is detached: check out the branch the index should follow (git -C %s switch main)", repo.Root, repo.Root)
	}
	if _, err := git(ctx, repo.Root, "remote", "get-url", "origin"); err != nil {
		return clone{}, fmt.Errorf("webhook repository %s has no origin remote: clone the shared repository (git clone URL DIR): %w", repo.Root, err)
	}
	return clone{root: repo.Root, branch: repo.Branch}, nil
}

// fetch brings origin's branch into refs/remotes/origin/<branch> (forced: a
// force-push on the remote is followed) and returns the commit it points to.
func (c clone) fetch(ctx context.Context) (string, error) {
	track := "refs/remotes/origin/" + c.branch
	if _, err := git(ctx, c.root, "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+c.branch+":"+track); err != nil {
		return "", fmt.Errorf("fetch %s from origin: %w", c.branch, err)
	}
	tip, err := git(ctx, c.root, "rev-parse", "--verify", "-q", track+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("read %s after the fetch: %w", track, err)
	}
	return tip, nil
}

// advance moves the checked-out branch and its work tree to commit, so that
// the clone's HEAD is the revision the index holds (spelunk status then calls
// it fresh, and a plain spelunk index of the clone is a no-op). --keep refuses
// rather than overwrite a local change in the work tree.
func (c clone) advance(ctx context.Context, commit string) error {
	ref, err := git(ctx, c.root, "symbolic-ref", "-q", "HEAD")
	if err != nil || ref != "refs/heads/"+c.branch {
		return fmt.Errorf("the clone %s is no longer on %s (HEAD %q): check it out again", c.root, c.branch, ref)
	}
	head, err := git(ctx, c.root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err == nil && head == commit {
		return nil
	}
	if _, err := git(ctx, c.root, "reset", "--quiet", "--keep", commit); err != nil {
		return fmt.Errorf("move %s to %s: %w", c.branch, commit, err)
	}
	return nil
}
