package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Status describes how a repository's index compares with the repository.
type Status struct {
	pg.Repository
	Files            int              `json:"files"`
	Symbols          int              `json:"symbols"`
	Edges            int              `json:"edges"`
	ResolvedEdges    int              `json:"resolved_edges"`
	PendingEmbedding int              `json:"pending_embedding"`
	Partial          int              `json:"partial_files"`
	Skipped          map[string]int   `json:"skipped"`
	Languages        []LanguageFiles  `json:"languages"`
	Secrets          []FileSecretNote `json:"secrets_redacted,omitempty"`
	// Unreadable lists (the first maxUnreadable of) the files no run could
	// read, with why: each run tries them again.
	Unreadable  []FileNote `json:"unreadable,omitempty"`
	Head        string     `json:"head,omitempty"`
	Stale       bool       `json:"stale"`
	StaleReason string     `json:"stale_reason,omitempty"`
	// StaleFiles counts the files on disk that differ from the index (edited,
	// added or deleted since they were indexed), when HEAD is the indexed commit.
	StaleFiles  int  `json:"stale_files,omitempty"`
	Interrupted bool `json:"interrupted"`
}

// LanguageFiles counts the files indexed in one language ("text" for the
// files no grammar parses).
type LanguageFiles struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
}

// FileNote is what a run noted about one file.
type FileNote struct {
	Path  string   `json:"path"`
	Notes []string `json:"notes"`
}

// maxUnreadable bounds Status.Unreadable.
const maxUnreadable = 20

// FileSecretNote counts the secrets redacted in one file.
type FileSecretNote struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// RepoStatus reports on the repository registered for dir. Staleness compares the
// last indexed commit with HEAD and then the files on disk with the index: only
// those git status reports as changed since HEAD and those indexed from the
// working tree can differ (engine/fresh), so the check costs one git status, one
// query and a stat of each, whatever the size of the repository.
func RepoStatus(ctx context.Context, db *pg.DB, rec pg.Repository) (Status, error) {
	st := Status{Repository: rec, Skipped: map[string]int{}}
	err := db.Pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM files WHERE repository_id = $1),
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND kind <> 'field'),
		(SELECT count(*) FROM edges WHERE repository_id = $1),
		(SELECT count(*) FROM edges WHERE repository_id = $1 AND (target_id IS NOT NULL OR target_file_id IS NOT NULL)),
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND embedding_state = 'pending'),
		(SELECT count(*) FROM files WHERE repository_id = $1 AND status = 'partial'),
		(SELECT indexing_started IS NOT NULL FROM repositories WHERE id = $1)`, rec.ID).
		Scan(&st.Files, &st.Symbols, &st.Edges, &st.ResolvedEdges, &st.PendingEmbedding, &st.Partial, &st.Interrupted)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT coalesce(skip_reason, 'unknown'), count(*) FROM files
		WHERE repository_id = $1 AND status = 'skipped' GROUP BY 1 ORDER BY 1`, rec.ID)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	var reason string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&reason, &n}, func() error { st.Skipped[reason] = n; return nil })
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	if st.Languages, err = languageFiles(ctx, db, rec.ID); err != nil {
		return st, err
	}
	rows, err = db.Pool.Query(ctx, `SELECT path, secrets_redacted FROM files
		WHERE repository_id = $1 AND secrets_redacted > 0 ORDER BY path`, rec.ID)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	st.Secrets, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FileSecretNote])
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	rows, err = db.Pool.Query(ctx, `SELECT path, notes FROM files
		WHERE repository_id = $1 AND status = 'skipped' AND skip_reason = $2 ORDER BY path COLLATE "C" LIMIT $3`,
		rec.ID, source.SkipUnreadable, maxUnreadable)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	st.Unreadable, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FileNote])
	if err != nil {
		return st, fmt.Errorf("repository status: unreadable files: %w", err)
	}

	return st, staleness(ctx, db, rec, &st)
}

// RepoFreshness is RepoStatus for a status line refreshed every few seconds
// (the TUI's): the same staleness, with the files and symbols the index runs
// stored (engine/pg RepoTotals) instead of counted, so it costs a fixed few
// indexed lookups and one git status whatever the repository's size (the
// counts of RepoStatus read every symbol and edge: ~300 ms at $GOROOT/src
// scale). Edges, resolved edges and the breakdowns are left out.
func RepoFreshness(ctx context.Context, db *pg.DB, rec pg.Repository) (Status, error) {
	st := Status{Repository: rec, Skipped: map[string]int{}}
	totals, ok, err := db.ReadRepoTotals(ctx, rec.ID)
	if err != nil {
		return st, err
	}
	if !ok { // no run has stored them yet (an index older than migration 0013)
		return RepoStatus(ctx, db, rec)
	}
	st.Files, st.Symbols = totals.Files, totals.Chunks
	err = db.Pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND embedding_state = 'pending'),
		(SELECT indexing_started IS NOT NULL FROM repositories WHERE id = $1)`, rec.ID).
		Scan(&st.PendingEmbedding, &st.Interrupted)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	return st, staleness(ctx, db, rec, &st)
}

// staleness says whether the index of rec is behind the repository.
func staleness(ctx context.Context, db *pg.DB, rec pg.Repository, st *Status) error {
	// Indexed already: a system directory was forced, so reading its status is fine.
	repo, err := source.OpenWith(ctx, rec.Root, source.OpenOptions{AllowSystemDirs: true})
	if err != nil {
		st.Stale, st.StaleReason = true, err.Error()
		return nil
	}
	defer repo.Close()
	st.Head = repo.Head
	switch {
	case rec.LastIndexedAt == nil:
		st.Stale, st.StaleReason = true, "never indexed"
	case st.Interrupted:
		st.Stale, st.StaleReason = true, "the last run did not finish"
	case repo.IsGit && repo.Head != rec.LastCommit:
		st.Stale, st.StaleReason = true, fmt.Sprintf("HEAD is %s, index is at %s", short(repo.Head), short(rec.LastCommit))
	case repo.IsGit:
		return diskStatus(ctx, db, repo, st)
	}
	return nil
}

// languageFiles counts the repository's indexed (or partial) files by
// language, most files first.
func languageFiles(ctx context.Context, db *pg.DB, repoID int64) ([]LanguageFiles, error) {
	rows, err := db.Pool.Query(ctx, `SELECT coalesce(language, 'unknown'), count(*) FROM files
		WHERE repository_id = $1 AND status <> 'skipped' GROUP BY 1 ORDER BY 2 DESC, 1`, repoID)
	if err != nil {
		return nil, fmt.Errorf("repository status: %w", err)
	}
	langs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LanguageFiles])
	if err != nil {
		return nil, fmt.Errorf("repository status: files by language: %w", err)
	}
	return langs, nil
}

// diskStatus marks st stale when files on disk differ from the index of the
// commit at HEAD.
func diskStatus(ctx context.Context, db *pg.DB, repo *source.Repo, st *Status) error {
	changed, err := repo.Changes(ctx)
	if err != nil { // not "clean": nobody can tell
		st.Stale, st.StaleReason = true, err.Error()
		return nil
	}
	stale, err := fresh.New(db, st.ID, repo.Root, fresh.Options{TTL: -1}).Changed(ctx, changed)
	if err != nil {
		return fmt.Errorf("repository status: %w", err)
	}
	if len(stale) == 0 {
		return nil
	}
	st.Stale, st.StaleFiles = true, len(stale)
	what := "with uncommitted changes not indexed"
	if st.WorkingTree {
		what = "changed since indexed"
	}
	names := strings.Join(stale[:min(len(stale), 3)], ", ")
	if len(stale) > 3 {
		names += ", …"
	}
	files := "files"
	if len(stale) == 1 {
		files = "file"
	}
	st.StaleReason = fmt.Sprintf("%d %s %s (%s): spelunk index --working-tree", len(stale), files, what, names)
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "(none)"
	}
	return sha
}
