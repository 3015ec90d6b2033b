package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options says what the installed hooks run.
type Options struct {
	// Binary is the absolute path of the spelunk binary the hooks start.
	Binary string
	// Flags are passed to every run (spelunk's global flags, such as the
	// embedder, that must match the manual runs). They are written into the
	// hook files in plain text: never a secret.
	Flags []string
}

// ErrRefused is returned (wrapped) by Install when a foreign hook could not
// take spelunk's block; the other hooks are installed all the same.
var ErrRefused = errors.New("hook left alone")

// Install puts spelunk's block into each hook of the repository containing
// dir: a new file where there is none, inserted into a foreign shell script,
// replaced where it is already (so installing twice is installing once).
func Install(ctx context.Context, dir string, opts Options) (Report, error) {
	if !filepath.IsAbs(opts.Binary) {
		return Report{}, fmt.Errorf("install hooks: the spelunk binary must be an absolute path (got %q)", opts.Binary)
	}
	loc, err := Locate(ctx, dir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Location: loc}
	if err := os.MkdirAll(loc.Dir, 0o755); err != nil {
		return rep, fmt.Errorf("install hooks: %w", err)
	}
	var refused []error
	for _, name := range Names {
		f, err := readHook(filepath.Join(loc.Dir, name))
		if err != nil {
			return rep, fmt.Errorf("install hooks: %w", err)
		}
		h := f.hook(name)
		h.Action, err = installOne(f, block(opts.Binary, loc.Root, name, opts.Flags))
		if err != nil {
			return rep, fmt.Errorf("install %s: %w", name, err)
		}
		if h.Action == "refused" {
			refused = append(refused, fmt.Errorf("%w: %s is %s", ErrRefused, f.path, f.refused))
		} else if h, err = reread(h, f.path); err != nil {
			return rep, err
		}
		rep.Hooks = append(rep.Hooks, h)
	}
	return rep, errors.Join(refused...)
}

// installOne writes f with blk in it and says what it did.
func installOne(f hookFile, blk string) (string, error) {
	switch {
	case !f.hasBlock() && f.refused != "":
		return "refused", nil
	case !f.exists:
		return "created", writeHook(f.path, f.withBlock(blk), 0o755)
	}
	out := f.withBlock(blk)
	if bytes.Equal(out, f.content) {
		return "unchanged", nil
	}
	action := "chained"
	if f.hasBlock() {
		action = "updated"
	}
	return action, writeHook(f.path, out, f.mode.Perm())
}

// reread refreshes h from disk after a change, keeping its action.
func reread(h Hook, p string) (Hook, error) {
	f, err := readHook(p)
	if err != nil {
		return h, err
	}
	n := f.hook(h.Name)
	n.Action = h.Action
	return n, nil
}

// Uninstall deletes spelunk's block from each hook of the repository
// containing dir, and the file when spelunk created it and nothing else was
// added since. Foreign hooks without the block are not touched.
func Uninstall(ctx context.Context, dir string) (Report, error) {
	loc, err := Locate(ctx, dir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Location: loc}
	for _, name := range Names {
		f, err := readHook(filepath.Join(loc.Dir, name))
		if err != nil {
			return rep, fmt.Errorf("uninstall hooks: %w", err)
		}
		h := f.hook(name)
		h.Action = "none"
		switch {
		case !f.hasBlock():
		case f.createdOnly():
			if err := os.Remove(f.path); err != nil {
				return rep, fmt.Errorf("uninstall %s: %w", name, err)
			}
			h.Action = "removed"
		default:
			if err := writeHook(f.path, f.withoutBlock(), f.mode.Perm()); err != nil {
				return rep, fmt.Errorf("uninstall %s: %w", name, err)
			}
			h.Action = "unchained"
		}
		if h.Action != "none" {
			if h, err = reread(h, f.path); err != nil {
				return rep, err
			}
		}
		rep.Hooks = append(rep.Hooks, h)
	}
	return rep, nil
}

// writeHook replaces p with content through a temporary file and a rename, so
// git never runs a half-written hook.
func writeHook(p string, content []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".spelunk-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
