package memcache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// errDamaged marks a cache file SQLite cannot read whole: it is set aside and
// a new one started (the cache is a copy of the core plus a write queue).
var errDamaged = errors.New("the file is damaged")

// The primary result codes of a damaged file (sqlite3.h).
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT
	sqliteNotADB  = 26 // SQLITE_NOTADB
)

// openDB opens the file at path in WAL mode, checks it (PRAGMA quick_check)
// and creates the schema. A damaged file is an errDamaged.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	// One connection: writes never meet SQLITE_BUSY between our own connections,
	// and a local read is a few milliseconds at the sizes the cache holds.
	db.SetMaxOpenConns(1)
	if err := checkFile(ctx, db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, schema+anchorSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: schema: %w", path, damaged(err))
	}
	return db, nil
}

// quickCheckMaxBytes bounds the files quick_check reads whole at open: it
// reads every page, ~280 ms of CPU for a cache of 50k memories, on every
// start of spelunk mcp and every memory command. A larger file gets the
// header check only (headerCheck: garbage over its start, a truncation),
// the damage a crash or a full disk leaves.
var quickCheckMaxBytes int64 = 8 << 20

// checkFile checks the cache file at path, open as db, at open.
func checkFile(ctx context.Context, db *sql.DB, path string) error {
	size, err := headerCheck(path)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if size > quickCheckMaxBytes {
		return nil
	}
	return quickCheck(ctx, db)
}

// headerCheck reads the database header of the file at path (sqlite.org
// fileformat2 §1.3): the magic string, the page size, and the database size
// in pages, which the file must hold when it is valid and no WAL may hold
// pages beyond it. It returns the file's size; a missing or empty file (a
// new cache) passes.
func headerCheck(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, err
	}
	h := make([]byte, 100)
	if _, err := io.ReadFull(f, h); err != nil || string(h[:16]) != "SQLite format 3\x00" {
		return fi.Size(), fmt.Errorf("%w: no SQLite header", errDamaged)
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	valid := binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		valid = false // pages may be in the WAL, checkpointed later
	}
	if valid && fi.Size() < pages*pageSize {
		return fi.Size(), fmt.Errorf("%w: %d bytes of %d pages of %d (truncated)", errDamaged, fi.Size(), pages, pageSize)
	}
	return fi.Size(), nil
}

// quickCheck runs SQLite's quick_check: the b-trees well formed, every page
// there (a truncated file), the header readable (garbage over its start).
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check(5)`)
	if err != nil {
		return fmt.Errorf("check: %w", damaged(err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("check: %w", damaged(err))
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check: %w", damaged(err))
	}
	if len(problems) > 0 {
		return fmt.Errorf("check: %w: %s", errDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// damaged marks err as an errDamaged when SQLite says the file is corrupt or
// not a database.
func damaged(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteCorrupt, sqliteNotADB:
			return fmt.Errorf("%w: %w", errDamaged, err)
		}
	}
	return err
}

// openOrRecover opens the file at path; a damaged one is set aside (renamed to
// PATH.corrupt-TIME with its -wal and -shm, never deleted) and a new, empty one
// opened, which note says. fi is the identity of the file opened.
func openOrRecover(ctx context.Context, path string, now time.Time) (db *sql.DB, fi os.FileInfo, note string, err error) {
	db, err = openDB(ctx, path)
	if errors.Is(err, errDamaged) {
		aside, aerr := setAside(path, now)
		if aerr != nil {
			return nil, nil, "", fmt.Errorf("%w (setting it aside: %w)", err, aerr)
		}
		note = fmt.Sprintf("the memory cache %s could not be read (%v); it was set aside as %s and a new, empty one started: "+
			"it is rebuilt from the core when the core is reachable, and writes that were queued in the damaged file "+
			"(not yet on the core) are not pushed", path, err, aside)
		db, err = openDB(ctx, path)
	}
	if err != nil {
		return nil, nil, "", err
	}
	if fi, err = os.Stat(path); err != nil {
		db.Close()
		return nil, nil, "", fmt.Errorf("open cache %s: %w", path, err)
	}
	return db, fi, note, nil
}

// setAside renames the file at path (and its -wal and -shm) to
// PATH.corrupt-TIME and returns that name.
func setAside(path string, now time.Time) (string, error) {
	aside := path + ".corrupt-" + now.UTC().Format("20060102T150405.000000000Z")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, aside+suffix)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("set aside %s: %w", path+suffix, err)
		}
	}
	return aside, nil
}

// noteRecovery keeps what a recovery did, for Recovery.
func (c *Cache) noteRecovery(note string) {
	if note == "" {
		return
	}
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	c.recovery = append(c.recovery, note)
}

// Recovery says what was done about a damaged, deleted or replaced cache file
// since Open ("" when nothing was): the file set aside, a new one started, the
// queued writes carried over. A long-lived client shows it to its user.
func (c *Cache) Recovery() string {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	return strings.Join(c.recovery, "\n")
}

// writeTx runs a write's transaction in the file at the cache's path, so that a
// write acknowledged is on disk there: a file deleted or replaced since it was
// opened is reopened first (the writes still queued in the old one carried
// over), and one gone during the transaction is reopened after it, carrying the
// write, or the write fails.
func (c *Cache) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := c.ensureFile(ctx); err != nil {
		c.noteRecovery(err.Error()) // the file at the path is fresh; what was queued before may be lost
	}
	c.fileMu.RLock()
	err := inTxOn(ctx, c.db(), fn)
	same := c.sameFile()
	c.fileMu.RUnlock()
	if err != nil || same {
		return err
	}
	if err := c.ensureFile(ctx); err != nil {
		return fmt.Errorf("the cache file was replaced during the write, which is not on disk: %w", err)
	}
	return nil
}

// sameFile says whether the file at the path is the one the cache holds open
// (fileMu held).
func (c *Cache) sameFile() bool {
	fi, err := os.Stat(c.opts.Path)
	return err == nil && os.SameFile(fi, c.file)
}

// ensureFile reopens the cache when the file at its path is no longer the one
// it holds open (deleted, or replaced by another), carrying the writes still
// queued in the old one (and their memories) over to the new one. The error
// says the carry failed; the cache is on the new file even then.
func (c *Cache) ensureFile(ctx context.Context) error {
	c.fileMu.Lock()
	defer c.fileMu.Unlock()
	if c.sameFile() {
		return nil
	}
	db, fi, note, err := openOrRecover(ctx, c.opts.Path, c.opts.Now())
	if err != nil {
		return fmt.Errorf("reopen the replaced cache: %w", err)
	}
	old := c.db()
	n, cerr := carryQueue(ctx, old, db)
	c.handle.Store(db)
	c.file = fi
	c.retired = append(c.retired, old)
	c.vecs.invalidate()
	c.noteRecovery(note)
	c.noteRecovery(fmt.Sprintf("the memory cache %s was deleted or replaced while in use; it was reopened and "+
		"%d queued writes carried over to it", c.opts.Path, n))
	if cerr != nil {
		return fmt.Errorf("carry the queued writes of the replaced cache %s: %w", c.opts.Path, cerr)
	}
	return nil
}

// carryQueue copies the live write queue of from (in order, appended to to's)
// and the memories not yet on the core; it returns how many writes it carried.
func carryQueue(ctx context.Context, from, to *sql.DB) (int, error) {
	var n int
	err := inTxOn(ctx, to, func(tx *sql.Tx) error {
		var err error
		if n, err = copyRows(ctx, from, tx, "queue", "id, op, payload, queued_at, attempts, dead, last_error",
			"dead = 0 ORDER BY seq"); err != nil {
			return err
		}
		_, err = copyRows(ctx, from, tx, "memories", "id, kind, author, content, status, parent_ids, superseded_by, "+
			"created_at, sync_at, synced, last_used, model, embedding", "synced = 0")
		return err
	})
	return n, err
}

// copyRows copies the columns cols of the rows of table matching where from a
// database into a transaction of another, skipping the rows it already holds.
func copyRows(ctx context.Context, from *sql.DB, to *sql.Tx, table, cols, where string) (int, error) {
	rows, err := from.QueryContext(ctx, `SELECT `+cols+` FROM `+table+` WHERE `+where)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	k := strings.Count(cols, ",") + 1
	ins := `INSERT OR IGNORE INTO ` + table + ` (` + cols + `) VALUES (?` + strings.Repeat(", ?", k-1) + `)`
	vals := make([]any, k)
	ptrs := make([]any, k)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("read %s: %w", table, err)
		}
		res, err := to.ExecContext(ctx, ins, vals...)
		if err != nil {
			return n, fmt.Errorf("write %s: %w", table, err)
		}
		m, _ := res.RowsAffected()
		n += int(m)
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("read %s: %w", table, err)
	}
	return n, nil
}
