package source

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// DiskBlobID returns git's blob id of the file at p (slash-separated,
// relative to root) as it is on disk, computed like WorkingTree's: of the
// bytes of a regular file, of the target of a symbolic link (never
// followed). The hash is the one of like, another blob id of the same
// repository: sha256 for 64 hex digits, else sha1. Anything else, or a path
// leaving root, is an error (matching fs.ErrNotExist for a missing file).
func DiskBlobID(ctx context.Context, root, p, like string) (string, error) {
	native := filepath.FromSlash(p)
	if !filepath.IsLocal(native) {
		return "", fmt.Errorf("hash %s: path is not inside the repository", p)
	}
	abs := filepath.Join(root, native)
	format := "sha1"
	if len(like) == 64 {
		format = "sha256"
	}
	fr := newFileReader(format)
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", p, err)
		}
		return fr.blobID([]byte(filepath.ToSlash(target))), nil
	}
	var buf bytes.Buffer
	if _, err := readFile(ctx, abs, &buf, math.MaxInt64); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return fr.blobID(buf.Bytes()), nil
}
