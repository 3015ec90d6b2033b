package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Read returns the content of f. With rev == WorkingTreeRev it reads f.Path
// from disk. Otherwise, when f.BlobSHA is set, it returns the content with
// that id: from the work tree when the file there hashes to it (the hash
// proves the bytes, and a clean checkout is read without git), else from
// git's object database. When f.BlobSHA is empty, or neither place has that
// content (a working-tree File edited again since it was listed), it returns
// f.Path as of commit rev ("" means r.Head). Git is reached through a
// long-lived `git cat-file --batch` process owned by r (see Close). A path
// that rev does not have gives an error matching fs.ErrNotExist.
func (r *Repo) Read(ctx context.Context, f File, rev string) ([]byte, error) {
	if rev == WorkingTreeRev {
		return r.readDisk(f.Path)
	}
	if !r.IsGit {
		return nil, fmt.Errorf("read %s at %s: %w", f.Path, rev, ErrNotGit)
	}
	if rev == "" {
		if rev = r.Head; rev == "" {
			return nil, fmt.Errorf("read %s: %w", f.Path, ErrNoCommits)
		}
	}
	if err := checkRev(rev); err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Path, err)
	}
	if f.BlobSHA != "" {
		if data, ok := r.readVerified(f); ok {
			return data, nil
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blobs == nil {
		r.blobs = r.NewBlobReader()
	}
	if f.BlobSHA != "" {
		data, err := r.blobs.Read(ctx, f.BlobSHA)
		if !errors.Is(err, fs.ErrNotExist) {
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", f.Path, err)
			}
			return data, nil
		}
	}
	data, err := r.blobs.Read(ctx, rev+":"+f.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", f.Path, rev, err)
	}
	return data, nil
}

// readVerified returns f's bytes from the work tree if they hash to
// f.BlobSHA.
func (r *Repo) readVerified(f File) ([]byte, bool) {
	native := filepath.FromSlash(f.Path)
	if !filepath.IsLocal(native) {
		return nil, false
	}
	abs := filepath.Join(r.Root, native)
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() || (f.Size > 0 && fi.Size() != f.Size) {
		return nil, false
	}
	fh, err := os.Open(abs)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(fh, data); err != nil {
		return nil, false
	}
	var one [1]byte
	if n, _ := fh.Read(one[:]); n != 0 { // it grew
		return nil, false
	}
	if newFileReader(r.objectFormat).blobID(data) != f.BlobSHA {
		return nil, false
	}
	return data, true
}

// readDisk reads a regular file below the root; it refuses paths that
// would leave the root and anything but a regular file (reading a FIFO
// would block, and a symlink may point anywhere).
func (r *Repo) readDisk(p string) ([]byte, error) {
	native := filepath.FromSlash(p)
	if !filepath.IsLocal(native) {
		return nil, fmt.Errorf("read %s: path is not inside the repository", p)
	}
	abs := filepath.Join(r.Root, native)
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", p, fi.Mode().Type())
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}

// BlobReader reads objects from a repository through one long-lived
// `git cat-file --batch` process, started on first use and restarted after
// a cancelled read. It is safe for concurrent use, one read at a time; open
// several for parallel reads. Close stops the process.
type BlobReader struct {
	root string

	mu     sync.Mutex
	cmd    *exec.Cmd
	stop   context.CancelFunc
	stdin  *bufio.Writer
	pipe   io.Closer
	stdout *bufio.Reader
	stderr *boundedBuffer
	closed bool
}

// NewBlobReader returns a reader of r's objects. No process starts until
// the first Read.
func (r *Repo) NewBlobReader() *BlobReader {
	return &BlobReader{root: r.Root}
}

var errReaderClosed = errors.New("blob reader is closed")

// Read returns the content of a blob named by anything git understands: a
// blob id, or "rev:path". A name git cannot resolve gives an error matching
// fs.ErrNotExist; a name of a tree or commit is an error too. When ctx ends
// during the read the process is stopped (its protocol state is lost) and
// the next Read starts another.
func (b *BlobReader) Read(ctx context.Context, name string) ([]byte, error) {
	if name == "" || strings.HasPrefix(name, "-") {
		return nil, fmt.Errorf("read object %q: invalid name", name)
	}
	if strings.ContainsAny(name, "\n\x00") {
		// The batch protocol is line-based: ask a one-off process instead.
		return readOneObject(ctx, b.root, name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errReaderClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.cmd == nil {
		if err := b.start(ctx); err != nil {
			return nil, err
		}
	}
	stopWatch := context.AfterFunc(ctx, b.stop)
	data, err := b.roundTrip(name)
	watching := stopWatch()
	if !watching || (err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotBlob)) {
		// The process was killed, died, or is out of step: drop it.
		stderr := b.stderr
		_ = b.shutdown()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read object %s: %w", name, ctx.Err())
		}
		if err != nil {
			return nil, &GitError{Args: []string{"cat-file", "--batch"}, Err: fmt.Errorf("read object %s: %w", name, err), Stderr: stderr.String()}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	return data, nil
}

var errNotBlob = errors.New("not a blob")

func (b *BlobReader) roundTrip(name string) ([]byte, error) {
	if _, err := b.stdin.WriteString(name + "\n"); err != nil {
		return nil, err
	}
	if err := b.stdin.Flush(); err != nil {
		return nil, err
	}
	obj, err := readBatchHeader(b.stdout)
	if err != nil {
		return nil, err
	}
	if obj.missing {
		return nil, fs.ErrNotExist
	}
	data := make([]byte, obj.size+1)
	if _, err := io.ReadFull(b.stdout, data); err != nil {
		return nil, err
	}
	if obj.typ != "blob" {
		return nil, fmt.Errorf("%w: a %s", errNotBlob, obj.typ)
	}
	return data[:obj.size:obj.size], nil
}

// start launches the process. Its lifetime is the reader's, not ctx's:
// ctx only lends its values (context.WithoutCancel), and Close, a
// cancelled Read or a protocol error stop it.
func (b *BlobReader) start(ctx context.Context) error {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	args := []string{"cat-file", "--batch"}
	cmd := gitCommand(pctx, b.root, args...)
	b.stderr = &boundedBuffer{max: 4096}
	cmd.Stderr = b.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		stop()
		return gitFailure(ctx, args, err, "")
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stop()
		return gitFailure(ctx, args, err, "")
	}
	if err := cmd.Start(); err != nil {
		stop()
		return gitFailure(ctx, args, err, "")
	}
	b.cmd, b.stop, b.pipe = cmd, stop, stdin
	b.stdin = bufio.NewWriter(stdin)
	b.stdout = bufio.NewReaderSize(stdout, 64<<10)
	return nil
}

// shutdown ends the process: closing stdin lets git finish and close its
// stdout; the drain waits for that. A killed git (a cancelled Read) has
// already gone.
func (b *BlobReader) shutdown() error {
	if b.cmd == nil {
		return nil
	}
	_ = b.pipe.Close()
	_, _ = io.Copy(io.Discard, b.stdout)
	err := b.cmd.Wait()
	b.stop()
	b.cmd, b.stdin, b.stdout, b.pipe = nil, nil, nil, nil
	var ee *exec.ExitError
	if errors.As(err, &ee) || errors.Is(err, context.Canceled) {
		return nil // killed by us: expected
	}
	return err
}

// Close stops the process. Reads after Close fail.
func (b *BlobReader) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.shutdown()
}

// readOneObject reads a blob with its own `git cat-file blob NAME`.
func readOneObject(ctx context.Context, root, name string) ([]byte, error) {
	data, err := runGit(ctx, root, "cat-file", "blob", name)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && exitCode(ge.Err) == 128 {
			return nil, fmt.Errorf("read object %q: %w (%s)", name, fs.ErrNotExist, ge.Stderr)
		}
		return nil, fmt.Errorf("read object %q: %w", name, err)
	}
	return data, nil
}
