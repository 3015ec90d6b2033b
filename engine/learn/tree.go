package learn

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// treeAt returns a directory holding dir's tree as of rev: dir itself when
// rev is empty, else a temporary copy (git archive) that cleanup removes.
// The repository itself is not touched: no worktree, no checkout.
func treeAt(ctx context.Context, dir, rev string) (string, func(), error) {
	if rev == "" {
		return dir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "spelunk-learn-")
	if err != nil {
		return "", nil, fmt.Errorf("learn: %w", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "archive", "--format=tar", rev+"^{commit}")
	out, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("learn: git archive: %w", err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("learn: git archive: %w", err)
	}
	xerr := extract(out, tmp)
	io.Copy(io.Discard, out)
	if werr := cmd.Wait(); werr != nil {
		cleanup()
		return "", nil, fmt.Errorf("learn: the tree of %q in %s: %s", rev, dir, strings.TrimSpace(stderr.String()))
	}
	if xerr != nil {
		cleanup()
		return "", nil, fmt.Errorf("learn: the tree of %q: %w", rev, xerr)
	}
	return tmp, cleanup, nil
}

// extract writes the regular files and directories of a tar stream under dst.
func extract(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			continue
		}
		p := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(p, tr); err != nil {
				return err
			}
		}
	}
}

func writeFile(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
