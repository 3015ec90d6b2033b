package index

import (
	"context"
	"fmt"
	"path"

	"github.com/spelunkhq/spelunk/engine/source"
)

// planPaths is plan for a run over opts.Paths: only those files are read,
// hashed and compared with their stored rows, so the cost follows the change,
// not the repository. The import resolver still sees every path (from the
// files table, one indexed query) since an import may name any file.
func (r *run) planPaths(ctx context.Context) error {
	sopts := source.Options{MaxFileBytes: r.opts.MaxFileBytes}
	present, gone, err := r.repo.WorkingFiles(ctx, r.opts.Paths, sopts)
	if err != nil {
		return err
	}
	present = dropBadNames(r, present, func(f source.File) string { return f.Path })
	gone = dropBadNames(r, gone, func(p string) string { return p })
	var asked []string
	for _, f := range present {
		asked = append(asked, f.Path)
	}
	asked = append(asked, gone...)
	atHead, err := r.repo.HeadBlobs(ctx, asked)
	if err != nil {
		return err
	}
	r.sum.Revision = source.WorkingTreeRev
	if r.interrupted, err = r.w.beginRun(ctx, false); err != nil {
		return err
	}
	if r.have, err = r.w.storedFiles(ctx, asked); err != nil {
		return err
	}
	all, err := r.w.storedPaths(ctx)
	if err != nil {
		return err
	}
	r.stored = len(all)
	known := make(map[string]bool, len(all)+len(present))
	for _, p := range all {
		known[p] = true
	}
	for _, f := range present {
		rev := source.WorkingTreeRev
		if atHead[f.Path] != "" && atHead[f.Path] == f.BlobSHA {
			rev = r.repo.Head // as a full working-tree run labels it
		}
		if s, ok := r.have[f.Path]; ok && s.blob == f.BlobSHA && s.status != "" {
			r.sum.FilesUnchanged++
			if relabels(s.revision, rev) {
				r.relabel = append(r.relabel, target{File: f, revision: rev})
			}
			continue
		}
		r.todo = append(r.todo, target{File: f, revision: rev})
		known[f.Path] = true
	}
	for _, p := range gone {
		if _, ok := r.have[p]; ok {
			r.deleted = append(r.deleted, p)
			delete(known, p)
		}
	}
	r.sum.FilesDeleted = len(r.deleted)
	paths := make([]string, 0, len(known))
	goMods := map[string][]byte{}
	for p := range known {
		paths = append(paths, p)
		if manifestFiles[path.Base(p)] {
			if data, err := r.repo.Read(ctx, source.File{Path: p}, source.WorkingTreeRev); err == nil {
				goMods[p] = data
			}
		}
	}
	r.resolver = newImportResolver(paths, goMods)
	return nil
}

// storedPaths lists the paths of every stored file of the repository.
func (w *writer) storedPaths(ctx context.Context) ([]string, error) {
	rows, err := w.db.Pool.Query(ctx, `SELECT path FROM files WHERE repository_id = $1`, w.repoID)
	if err != nil {
		return nil, fmt.Errorf("list indexed paths: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("list indexed paths: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
