package source

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// File is one file of a listing.
type File struct {
	Path string // slash-separated, relative to Repo.Root
	// BlobSHA identifies the content: the git blob id at HEAD for a committed
	// file, and for a file on disk the same hash computed from its content
	// (sha1 of "blob <len>\x00<content>", or sha256 in a sha256 repository),
	// so unchanged content keeps its id. A symlink's is the hash of its
	// target, as in git. "" for a submodule, and for a file on disk whose
	// content was not read (too large, unreadable).
	BlobSHA  string
	Size     int64
	Language string // left "": the indexer fills it
	Skip     string // "" to index the file, else one of the Skip* reasons
}

// Files lists the committed tree at r.Head with one `git ls-tree` (blob
// ids, sizes, modes), then classifies every blob that the path and size
// rules left in (and opts.Known does not name) from its first bytes: read
// from the work tree when the file there hashes to the same blob id, else
// from `git cat-file --batch`.
// It returns ErrNoCommits when the repository has no commit and ErrNotGit
// for a plain directory.
func (r *Repo) Files(ctx context.Context, opts Options) ([]File, error) {
	if !r.IsGit {
		return nil, fmt.Errorf("list committed files in %s: %w", r.Root, ErrNotGit)
	}
	if r.Head == "" {
		return nil, fmt.Errorf("list committed files in %s: %w", r.Root, ErrNoCommits)
	}
	files := make([]File, 0, 1024)
	var sniff []int
	err := streamGit(ctx, r.Root, func(rec []byte) error {
		f, mode, err := parseLsTree(rec)
		if err != nil {
			return err
		}
		switch mode {
		case "160000":
			f.Skip = SkipSubmodule
		case "120000":
			f.Skip = SkipSymlink
		default:
			if f.Size < 0 {
				f.Skip = SkipUnreadable
				break
			}
			f.Skip = classifyPath(f.Path, f.Size, opts)
		}
		if f.Skip == "" && (opts.Known == nil || !opts.Known(f.Path, f.BlobSHA)) {
			sniff = append(sniff, len(files))
		}
		files = append(files, f)
		return nil
	}, "ls-tree", "-r", "-l", "-z", "--full-tree", r.Head)
	if err != nil {
		return nil, fmt.Errorf("list committed files at %s: %w", r.Head, err)
	}
	sniff = r.sniffFromDisk(ctx, files, sniff)
	if err := r.sniffBlobs(ctx, files, sniff); err != nil {
		return nil, fmt.Errorf("classify committed files at %s: %w", r.Head, err)
	}
	return files, nil
}

// parseLsTree parses "<mode> <type> <object> <size>\t<path>".
func parseLsTree(rec []byte) (File, string, error) {
	tab := bytes.IndexByte(rec, '\t')
	if tab < 0 {
		return File{}, "", fmt.Errorf("git ls-tree: malformed entry %q", rec)
	}
	fields := strings.Fields(string(rec[:tab]))
	if len(fields) != 4 {
		return File{}, "", fmt.Errorf("git ls-tree: malformed entry %q", rec)
	}
	f := File{Path: string(rec[tab+1:]), BlobSHA: fields[2]}
	switch fields[3] {
	case "-":
	case "BAD":
		// The object is absent (a partial or shallow clone without large blobs):
		// recorded as unreadable rather than failing the whole listing.
		f.Size = -1
	default:
		size, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil {
			return File{}, "", fmt.Errorf("git ls-tree: malformed size in %q", rec)
		}
		f.Size = size
	}
	if fields[0] == "160000" {
		f.BlobSHA = "" // a commit of another repository, not content here
	}
	return f, fields[0], nil
}

// sniffFromDisk classifies each files[i], i in idx, from its copy in the
// work tree when that copy hashes to the committed blob id, which proves the
// bytes are the same; this is much cheaper than inflating every object.
// It returns the indices it could not settle (edited, missing, filtered by
// clean/smudge or line-ending conversion), in order.
func (r *Repo) sniffFromDisk(ctx context.Context, files []File, idx []int) []int {
	if len(idx) == 0 {
		return nil
	}
	done := make([]bool, len(idx))
	forEachIndex(ctx, len(idx), r.fileReader, func(fr *fileReader, k int) {
		f := &files[idx[k]]
		data, ok := fr.readExact(ctx, filepath.Join(r.Root, filepath.FromSlash(f.Path)), f.Size)
		if ok && fr.blobID(data) == f.BlobSHA {
			f.Skip = classifyContent(data, f.Size)
			done[k] = true
		}
	})
	rest := idx[:0:0]
	for k, i := range idx {
		if !done[k] {
			rest = append(rest, i)
		}
	}
	return rest
}

// readExact reads a regular file expected to hold exactly size bytes.
func (fr *fileReader) readExact(ctx context.Context, abs string, size int64) ([]byte, bool) {
	fi, err := readFile(ctx, abs, &fr.buf, size+1)
	if err != nil || fi.Size() != size || int64(fr.buf.Len()) != size {
		return nil, false
	}
	return fr.buf.Bytes(), true
}

// sniffBlobs classifies files[i] for each i in idx from the blob's first
// bytes. Large lists are split across a few `git cat-file --batch`
// processes, each fed by its own writer so that neither side ever waits.
func (r *Repo) sniffBlobs(ctx context.Context, files []File, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	workers := 1
	if len(idx) >= 256 {
		workers = min(max(runtime.GOMAXPROCS(0), 2), 4)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		var mine []int
		for k := w; k < len(idx); k += workers {
			mine = append(mine, idx[k])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = r.sniffBatch(ctx, files, mine)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (r *Repo) sniffBatch(parent context.Context, files []File, idx []int) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	args := []string{"cat-file", "--batch", "--buffer"}
	cmd := gitCommand(ctx, r.Root, args...)
	stderr := &boundedBuffer{max: 4096}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return gitFailure(ctx, args, err, "")
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return gitFailure(ctx, args, err, "")
	}
	if err := cmd.Start(); err != nil {
		return gitFailure(ctx, args, err, "")
	}
	go func() {
		w := bufio.NewWriterSize(stdin, 32<<10)
		for _, i := range idx {
			if _, err := w.WriteString(files[i].BlobSHA + "\n"); err != nil {
				break
			}
		}
		_ = w.Flush()
		_ = stdin.Close()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	head := make([]byte, SniffLen)
	var protoErr error
	for _, i := range idx {
		obj, err := readBatchHeader(br)
		if err != nil {
			protoErr = err
			break
		}
		f := &files[i]
		if obj.missing || obj.typ != "blob" {
			f.Skip = SkipUnreadable
			continue
		}
		n := int(min(obj.size, SniffLen))
		if _, err := io.ReadFull(br, head[:n]); err != nil {
			protoErr = err
			break
		}
		if _, err := br.Discard(int(obj.size) - n + 1); err != nil {
			protoErr = err
			break
		}
		f.Skip = classifyContent(head[:n], obj.size)
	}
	if protoErr != nil {
		cancel()
	}
	_, _ = io.Copy(io.Discard, br)
	waitErr := cmd.Wait()
	switch {
	case parent.Err() != nil:
		return gitFailure(parent, args, parent.Err(), stderr.String())
	case protoErr != nil:
		return &GitError{Args: args, Err: fmt.Errorf("read objects: %w", protoErr), Stderr: stderr.String()}
	case waitErr != nil:
		return gitFailure(ctx, args, waitErr, stderr.String())
	}
	return nil
}

// batchObject is the header git cat-file --batch prints before an object.
type batchObject struct {
	oid     string
	typ     string
	size    int64
	missing bool // "missing" or "ambiguous": no content follows
}

// readBatchHeader reads "<oid> <type> <size>\n" or "<name> missing\n".
// The name may contain spaces (it can be "rev:path"), so it parses from the end.
func readBatchHeader(br *bufio.Reader) (batchObject, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if err == bufio.ErrBufferFull {
			// Only a very long "rev:path missing" line gets here.
			rest, err2 := br.ReadString('\n')
			if err2 != nil {
				return batchObject{}, err2
			}
			line = append(append([]byte(nil), line...), rest...)
		} else {
			return batchObject{}, err
		}
	}
	line = line[:len(line)-1]
	if bytes.HasSuffix(line, []byte(" missing")) || bytes.HasSuffix(line, []byte(" ambiguous")) {
		return batchObject{missing: true}, nil
	}
	sp := bytes.LastIndexByte(line, ' ')
	if sp < 0 {
		return batchObject{}, fmt.Errorf("malformed header %q", line)
	}
	size, err := strconv.ParseInt(string(line[sp+1:]), 10, 64)
	if err != nil || size < 0 {
		return batchObject{}, fmt.Errorf("malformed header %q", line)
	}
	rest := line[:sp]
	sp = bytes.LastIndexByte(rest, ' ')
	if sp < 0 {
		return batchObject{}, fmt.Errorf("malformed header %q", line)
	}
	return batchObject{oid: string(rest[:sp]), typ: string(rest[sp+1:]), size: size}, nil
}

// WorkingTree lists the files as they are on disk. In a git repository that
// is the tracked files plus the untracked ones that are not ignored (one
// `git ls-files -co --exclude-standard`), without tracked files deleted from
// disk. A plain directory is walked honouring its .gitignore files, without
// entering version-control, dependency and cache directories (see
// prunedDirs). Every file no larger than the cap is read and hashed, so
// BlobSHA always matches the content, but for those opts.Unchanged proves
// unchanged by their size and modification time.
func (r *Repo) WorkingTree(ctx context.Context, opts Options) ([]File, error) {
	var entries []walkEntry
	if r.IsGit {
		prev := "\x00"
		err := streamGit(ctx, r.Root, func(rec []byte) error {
			p := string(rec)
			if p == prev { // an unmerged path appears once per stage
				return nil
			}
			prev = p
			if strings.HasSuffix(p, "/") {
				// ls-files -o shows a nested repository as "dir/".
				entries = append(entries, walkEntry{path: strings.TrimSuffix(p, "/"), skip: SkipSubmodule})
				return nil
			}
			entries = append(entries, walkEntry{path: p})
			return nil
		}, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name")
		if err != nil {
			return nil, fmt.Errorf("list working tree of %s: %w", r.Root, err)
		}
	} else {
		var err error
		if entries, err = walkPlain(ctx, r.Root); err != nil {
			return nil, fmt.Errorf("walk %s: %w", r.Root, err)
		}
	}

	files := make([]File, len(entries))
	keep := make([]bool, len(entries))
	forEachIndex(ctx, len(entries), r.fileReader, func(fr *fileReader, i int) {
		files[i], keep[i] = fr.stat(ctx, r.Root, entries[i], opts)
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list working tree of %s: %w", r.Root, err)
	}
	out := files[:0]
	for i := range files {
		if keep[i] {
			out = append(out, files[i])
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// fileReader reads and hashes files on disk; each worker owns one.
type fileReader struct {
	buf  bytes.Buffer
	h    hash.Hash
	sum  []byte
	meta []byte
}

// fileReader returns a reader hashing with the repository's object format.
func (r *Repo) fileReader() *fileReader { return newFileReader(r.objectFormat) }

func newFileReader(objectFormat string) *fileReader {
	fr := &fileReader{h: sha1.New()}
	if objectFormat == "sha256" {
		fr.h = sha256.New()
	}
	return fr
}

// blobID returns git's id for a blob with this content.
func (fr *fileReader) blobID(data []byte) string {
	fr.h.Reset()
	fr.meta = append(strconv.AppendInt(append(fr.meta[:0], "blob "...), int64(len(data)), 10), 0)
	fr.h.Write(fr.meta)
	fr.h.Write(data)
	fr.sum = fr.h.Sum(fr.sum[:0])
	return hex.EncodeToString(fr.sum)
}

// stat describes one entry on disk; ok is false when it no longer exists.
// Only a regular file is ever opened (see readFile).
func (fr *fileReader) stat(ctx context.Context, root string, e walkEntry, opts Options) (f File, ok bool) {
	f = File{Path: e.path, Skip: e.skip}
	if e.skip == SkipSubmodule {
		return f, true
	}
	abs := filepath.Join(root, filepath.FromSlash(e.path))
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, false
	case err != nil:
		f.Skip = SkipUnreadable
		return f, true
	case fi.Mode()&fs.ModeSymlink != 0:
		return fr.symlink(abs, f), true
	case fi.IsDir():
		if f.Skip == "" {
			f.Skip = SkipSubmodule // a tracked path that is a directory: a gitlink
		}
		return f, true
	case !fi.Mode().IsRegular():
		f.Skip = SkipSpecial
		return f, true
	}
	f.Size = fi.Size()
	if classifyPath(e.path, f.Size, opts) == SkipTooLarge {
		f.Skip = SkipTooLarge
		return f, true
	}
	if opts.Unchanged != nil && fi.Mode().IsRegular() {
		if blob, ok := opts.Unchanged(e.path, f.Size, fi.ModTime()); ok {
			f.BlobSHA = blob
			return f, true
		}
	}
	limit := opts.maxBytes()
	fi, err = readFile(ctx, abs, &fr.buf, limit+1)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, false
	case fi != nil && isSpecial(fi.Mode()):
		f.Skip = SkipSpecial // replaced by one since the Lstat
		return f, true
	case err != nil:
		f.Skip = SkipUnreadable
		return f, true
	}
	data := fr.buf.Bytes()
	f.Size = int64(len(data))
	if f.Size > limit { // it grew since Lstat
		f.Skip = SkipTooLarge
		return f, true
	}
	f.BlobSHA = fr.blobID(data)
	f.Skip = Classify(e.path, data, f.Size, opts)
	return f, true
}

// symlink describes a symbolic link: its id is the hash of its target, as
// in git, and it is skipped, never followed.
func (fr *fileReader) symlink(abs string, f File) File {
	target, err := os.Readlink(abs)
	if err != nil {
		f.Skip = SkipUnreadable
		return f
	}
	f.Size = int64(len(target))
	f.BlobSHA = fr.blobID([]byte(filepath.ToSlash(target)))
	if f.Skip == "" {
		f.Skip = symlinkReason(abs)
	}
	return f
}
