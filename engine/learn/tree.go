package learn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spelunkhq/spelunk/engine/pairs"
	"github.com/spelunkhq/spelunk/engine/source"
)

// treeAt returns a directory holding what the miner reads of dir's tree as of
// rev: dir itself when rev is empty, else a temporary copy of its code and
// Markdown files at rev that cleanup removes. The repository is not touched
// (no worktree, no checkout); a blob a partial clone lacks is left out.
func treeAt(ctx context.Context, dir, rev string) (string, func(), error) {
	if rev == "" {
		return dir, func() {}, nil
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "ls-tree", "-r", "-z", "--full-tree", rev+"^{commit}")
	cmd.Stderr = &stderr
	list, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("learn: the tree of %q in %s: %s", rev, dir, strings.TrimSpace(stderr.String()))
	}
	repo, err := source.Open(ctx, dir)
	if err != nil {
		return "", nil, fmt.Errorf("learn: %w", err)
	}
	blobs := repo.NewBlobReader()
	defer blobs.Close()
	tmp, err := os.MkdirTemp("", "spelunk-learn-")
	if err != nil {
		return "", nil, fmt.Errorf("learn: %w", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	for _, entry := range bytes.Split(list, []byte{0}) {
		// "<mode> <type> <object>\t<path>"
		meta, path, ok := strings.Cut(string(entry), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || !strings.HasPrefix(f[0], "1006") || !pairs.Reads(path) {
			continue
		}
		name := filepath.FromSlash(path)
		if !filepath.IsLocal(name) {
			continue
		}
		data, err := blobs.Read(ctx, f[2])
		if errors.Is(err, fs.ErrNotExist) {
			continue // not in this clone
		}
		if err == nil {
			err = writeFile(filepath.Join(tmp, name), data)
		}
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("learn: the tree of %q: %s: %w", rev, path, err)
		}
	}
	return tmp, cleanup, nil
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
