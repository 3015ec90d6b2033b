package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Content is a file's bytes together with the id and the stat of that same
// read, so that content is never stored under a hash taken from another read
// (a file edited between the listing and the read).
type Content struct {
	Data    []byte
	BlobSHA string // git's blob id of Data (for a read from git, the object id)
	Size    int64  // len(Data)
	// ModTime is the file's mtime when it was opened, also for a committed
	// file whose copy on disk hashed to its blob id; zero for a read from
	// git's object database.
	ModTime time.Time

	info   fs.FileInfo // the opened file's stat, for StillCurrent; nil for a read from git
	readAt time.Time   // when the read started
}

// StableModTime returns the mtime of the file the bytes were read from when
// it can later prove them unchanged: a file found then with the same size and
// this mtime holds the same bytes. It is not set (ok false) for a read from
// git's object database, nor for a file modified within RacyWindow of the
// read, since a write in the same timestamp tick leaves the mtime as it was
// (as in "racy git"); such a file has to be hashed to be compared.
func (c Content) StableModTime() (mtime time.Time, ok bool) {
	if c.ModTime.IsZero() || c.readAt.IsZero() || !c.ModTime.Before(c.readAt.Add(-RacyWindow)) {
		return time.Time{}, false
	}
	return c.ModTime, true
}

// Read returns the content of f; it is ReadContent without the id and stat.
func (r *Repo) Read(ctx context.Context, f File, rev string) ([]byte, error) {
	c, err := r.ReadContent(ctx, f, rev)
	return c.Data, err
}

// ReadContent returns the content of f with its blob id. With rev ==
// WorkingTreeRev it reads f.Path from disk (a regular file only) and hashes
// those bytes; compare Content.BlobSHA with f.BlobSHA to tell an edit since
// the listing, and call StillCurrent after using the bytes to tell an edit
// during the read. Otherwise, when f.BlobSHA is set, it returns the content
// with that id: from the work tree when the file there hashes to it (the hash
// proves the bytes, and a clean checkout is read without git), else from
// git's object database. When f.BlobSHA is empty, or neither place has that
// content (a working-tree File edited again since it was listed), it returns
// f.Path as of commit rev ("" means r.Head). Git is reached through a
// long-lived `git cat-file --batch` process owned by r (see Close). A path
// that rev does not have gives an error matching fs.ErrNotExist.
func (r *Repo) ReadContent(ctx context.Context, f File, rev string) (Content, error) {
	if rev == WorkingTreeRev {
		return r.readDisk(ctx, f.Path)
	}
	if !r.IsGit {
		return Content{}, fmt.Errorf("read %s at %s: %w", f.Path, rev, ErrNotGit)
	}
	if rev == "" {
		if rev = r.Head; rev == "" {
			return Content{}, fmt.Errorf("read %s: %w", f.Path, ErrNoCommits)
		}
	}
	if err := checkRev(rev); err != nil {
		return Content{}, fmt.Errorf("read %s: %w", f.Path, err)
	}
	if f.BlobSHA != "" {
		if data, fi, at, ok := r.readVerified(ctx, f); ok {
			// The hash proves the bytes: no StillCurrent check (info stays
			// nil), but the stat can prove them unchanged later.
			c := gitContent(data, f.BlobSHA)
			c.ModTime, c.readAt = fi.ModTime(), at
			return c, nil
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blobs == nil {
		r.blobs = r.NewBlobReader()
	}
	if f.BlobSHA != "" {
		data, _, err := r.blobs.read(ctx, f.BlobSHA)
		if !errors.Is(err, fs.ErrNotExist) {
			if err != nil {
				return Content{}, fmt.Errorf("read %s: %w", f.Path, err)
			}
			return gitContent(data, f.BlobSHA), nil
		}
	}
	data, oid, err := r.blobs.read(ctx, rev+":"+f.Path)
	if err != nil {
		return Content{}, fmt.Errorf("read %s at %s: %w", f.Path, rev, err)
	}
	return gitContent(data, oid), nil
}

func gitContent(data []byte, oid string) Content {
	return Content{Data: data, BlobSHA: oid, Size: int64(len(data))}
}

// RacyWindow is how close to a read a file's mtime must be for the stat
// to prove nothing: two writes within one timestamp tick (up to 2s on FAT,
// a clock tick elsewhere) leave the same mtime, as in "racy git".
const RacyWindow = 3 * time.Second

// StillCurrent reports whether the file at path (slash-separated, relative
// to the root) is still the one c was read from, unchanged: same file, same
// size, same mtime, and, when it was modified just before or during the
// read (RacyWindow), the same bytes. Content read from git is always current
// (an object never changes). A false answer means c may mix two versions or
// be stale: read the file again, or leave it for the next run.
func (r *Repo) StillCurrent(path string, c Content) bool {
	if c.info == nil {
		return true
	}
	native := filepath.FromSlash(path)
	if !filepath.IsLocal(native) {
		return false
	}
	abs := filepath.Join(r.Root, native)
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, c.info) {
		return false
	}
	if c.info.Size() != c.Size || fi.Size() != c.Size || !fi.ModTime().Equal(c.ModTime) {
		return false
	}
	if c.ModTime.Before(c.readAt.Add(-RacyWindow)) {
		return true // any later write would have moved the mtime
	}
	var buf bytes.Buffer
	if _, err := readFile(context.Background(), abs, &buf, c.Size+1); err != nil {
		return false
	}
	return bytes.Equal(buf.Bytes(), c.Data)
}

// readVerified returns f's bytes from the work tree if they hash to
// f.BlobSHA, with the stat of the file opened and when the read started.
func (r *Repo) readVerified(ctx context.Context, f File) ([]byte, fs.FileInfo, time.Time, bool) {
	native := filepath.FromSlash(f.Path)
	if !filepath.IsLocal(native) {
		return nil, nil, time.Time{}, false
	}
	limit := int64(math.MaxInt64) // size unknown: read it all
	if f.Size > 0 {
		limit = f.Size + 1 // one more byte tells a file that grew
	}
	var buf bytes.Buffer
	start := time.Now()
	fi, err := readFile(ctx, filepath.Join(r.Root, native), &buf, limit)
	if err != nil || (f.Size > 0 && fi.Size() != f.Size) || int64(buf.Len()) != fi.Size() {
		return nil, nil, time.Time{}, false
	}
	data := buf.Bytes()
	if newFileReader(r.objectFormat).blobID(data) != f.BlobSHA {
		return nil, nil, time.Time{}, false
	}
	return data, fi, start, true
}

// readDisk reads a regular file below the root and hashes the bytes it
// read; it refuses paths that would leave the root and never opens
// anything but a regular file (a FIFO or device could block, a symlink may
// point anywhere).
func (r *Repo) readDisk(ctx context.Context, p string) (Content, error) {
	native := filepath.FromSlash(p)
	if !filepath.IsLocal(native) {
		return Content{}, fmt.Errorf("read %s: path is not inside the repository", p)
	}
	var buf bytes.Buffer
	start := time.Now()
	fi, err := readFile(ctx, filepath.Join(r.Root, native), &buf, math.MaxInt64)
	if err != nil {
		return Content{}, fmt.Errorf("read %s: %w", p, err)
	}
	data := buf.Bytes()
	if data == nil {
		data = []byte{}
	}
	return Content{
		Data:    data,
		BlobSHA: newFileReader(r.objectFormat).blobID(data),
		Size:    int64(len(data)),
		ModTime: fi.ModTime(),
		info:    fi,
		readAt:  start,
	}, nil
}

// BlobReader reads objects from a repository through one long-lived
// `git cat-file --batch` process, started on first use and restarted after
// a cancelled read. It is safe for concurrent use, one read at a time; open
// several for parallel reads. Close stops the process.
type BlobReader struct {
	root         string
	objectFormat string

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
	return &BlobReader{root: r.Root, objectFormat: r.objectFormat}
}

var errReaderClosed = errors.New("blob reader is closed")

// Read returns the content of a blob named by anything git understands: a
// blob id, or "rev:path". A name git cannot resolve gives an error matching
// fs.ErrNotExist; a name of a tree or commit is an error too. When ctx ends
// during the read the process is stopped (its protocol state is lost) and
// the next Read starts another.
func (b *BlobReader) Read(ctx context.Context, name string) ([]byte, error) {
	data, _, err := b.read(ctx, name)
	return data, err
}

// read is Read, also returning the object id git resolved name to.
func (b *BlobReader) read(ctx context.Context, name string) ([]byte, string, error) {
	if name == "" || strings.HasPrefix(name, "-") {
		return nil, "", fmt.Errorf("read object %q: invalid name", name)
	}
	if strings.ContainsAny(name, "\n\x00") {
		// The batch protocol is line-based: ask a one-off process instead,
		// and hash what it printed (a blob's id is the hash of its bytes).
		data, err := readOneObject(ctx, b.root, name)
		if err != nil {
			return nil, "", err
		}
		return data, newFileReader(b.objectFormat).blobID(data), nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, "", errReaderClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if b.cmd == nil {
		if err := b.start(ctx); err != nil {
			return nil, "", err
		}
	}
	stopWatch := context.AfterFunc(ctx, b.stop)
	data, oid, err := b.roundTrip(name)
	watching := stopWatch()
	if !watching || (err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotBlob)) {
		// The process was killed, died, or is out of step: drop it.
		stderr := b.stderr
		_ = b.shutdown()
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("read object %s: %w", name, ctx.Err())
		}
		if err != nil {
			return nil, "", &GitError{Args: []string{"cat-file", "--batch"}, Err: fmt.Errorf("read object %s: %w", name, err), Stderr: stderr.String()}
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("read object %s: %w", name, err)
	}
	return data, oid, nil
}

var errNotBlob = errors.New("not a blob")

func (b *BlobReader) roundTrip(name string) ([]byte, string, error) {
	if _, err := b.stdin.WriteString(name + "\n"); err != nil {
		return nil, "", err
	}
	if err := b.stdin.Flush(); err != nil {
		return nil, "", err
	}
	obj, err := readBatchHeader(b.stdout)
	if err != nil {
		return nil, "", err
	}
	if obj.missing {
		return nil, "", fs.ErrNotExist
	}
	data := make([]byte, obj.size+1)
	if _, err := io.ReadFull(b.stdout, data); err != nil {
		return nil, "", err
	}
	if obj.typ != "blob" {
		return nil, "", fmt.Errorf("%w: a %s", errNotBlob, obj.typ)
	}
	return data[:obj.size:obj.size], obj.oid, nil
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
