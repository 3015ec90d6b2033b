package index

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/postings"
)

// groupFiles is the most files a postings group takes (migration 0021): a
// postings row holds a term's postings of one group's files. At $GOROOT/src
// groups of 64 files store 0.7M rows where one row per file took 1.76M; a
// smaller group costs less to rewrite when one of its files changes (its rows
// are read whole, postingsChange) but saves less (16: 0.9M rows).
const groupFiles = 64

// groupLockSpace is the first key of the transaction locks on postings groups:
// two writers of one run (index.go's pipeline) rewriting files of the same
// group take turns, each reading the group's rows after the other committed.
// Runs of one repository never overlap (runLock); lockSpace is the run lock's.
const groupLockSpace int32 = 0x5350_4c47 // "SPLG"

// filePostings are the postings of one written file's chunks, per term.
type filePostings struct {
	group int64
	terms map[string][]postings.Posting
}

// assignGroups gives each file of batch its postings group: a file that
// was stored keeps its group (had, by path); the others, in batch order,
// make new groups of at most groupFiles files, each named by its first file's
// new id (ids, per batch entry), which no file has had before.
func assignGroups(batch []parsed, ids []int64, had map[string]int64) []int64 {
	out := make([]int64, len(batch))
	var group int64
	members := 0
	for i, p := range batch {
		if g := had[p.Path]; g != 0 {
			out[i] = g
			continue
		}
		if members == 0 || members == groupFiles {
			group, members = ids[i], 0
		}
		out[i] = group
		members++
	}
	return out
}

// groupKey is a group's row key: (group, term).
type groupKey struct {
	group int64
	term  string
}

// postingsChange rewrites the postings of a transaction's files: the postings
// of the symbols gone (every symbol of a rewritten or deleted file, by its old
// id) leave the rows of the groups touched (those files' groups), the files'
// new postings (files) join their groups' rows. Rows of a touched group that
// neither loses nor gains a posting stay as they are; the others are deleted
// here and returned, rewritten, for the COPY with the other rows (whose rows
// without postings are simply not returned). A group nothing stored touches
// (a batch's new files) is not read at all.
func (w *writer) postingsChange(ctx context.Context, q querier, touched []int64, gone []int64,
	files []filePostings) ([][]any, error) {
	changed := map[groupKey]bool{}
	for _, f := range files {
		for term := range f.terms {
			changed[groupKey{f.group, term}] = true
		}
	}
	merged := map[groupKey][]postings.Posting{}
	var stale []string // the stored rows rewritten, by ctid
	if len(touched) > 0 {
		var err error
		if merged, stale, err = w.readGroups(ctx, q, touched, gone, changed); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		for term, ps := range f.terms {
			k := groupKey{f.group, term}
			merged[k] = append(merged[k], ps...)
		}
	}
	keys := make([]groupKey, 0, len(changed))
	for k := range changed {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.term, b.term), cmp.Compare(a.group, b.group))
	})
	var rows [][]any
	for _, k := range keys {
		if ps := merged[k]; len(ps) > 0 {
			rows = append(rows, []any{w.repoID, k.group, k.term, len(ps), postings.Encode(nil, ps)})
		}
	}
	if len(stale) > 0 {
		// By ctid: under the group's lock, read in this transaction, the rows
		// stay where they were read. By (group, term) the term index found
		// each term's rows of every group: 23 ms for 500 terms at $GOROOT/src.
		if _, err := q.Exec(ctx, `DELETE FROM postings WHERE repository_id = $1 AND ctid = ANY ($2::text[]::tid[])`,
			w.repoID, stale); err != nil {
			return nil, fmt.Errorf("delete the rewritten postings rows: %w", err)
		}
	}
	return rows, nil
}

// readGroups locks the groups touched and reads their rows, leaving out the
// postings of the symbols gone. It returns the remaining postings of the rows
// that lost any or that changed already names (rows gaining postings), and
// adds the former to changed, with those rows' ctids (to delete); a row that
// neither loses nor gains is left alone.
func (w *writer) readGroups(ctx context.Context, q querier, touched []int64, gone []int64,
	changed map[groupKey]bool) (map[groupKey][]postings.Posting, []string, error) {
	locks := make([]int32, 0, len(touched))
	for _, g := range touched {
		h := fnv.New32a()
		fmt.Fprintf(h, "%d:%d", w.repoID, g)
		locks = append(locks, int32(h.Sum32()))
	}
	slices.Sort(locks) // one order for every writer: no deadlock between them
	locks = slices.Compact(locks)
	if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock($1, k) FROM unnest($2::int4[]) AS k`, groupLockSpace, locks); err != nil {
		return nil, nil, fmt.Errorf("lock %d postings groups: %w", len(touched), err)
	}
	drop := make(map[int64]bool, len(gone))
	for _, id := range gone {
		drop[id] = true
	}
	rows, err := q.Query(ctx, `SELECT ctid::text, group_id, term, data FROM postings WHERE repository_id = $1 AND group_id = ANY ($2)`,
		w.repoID, touched)
	if err != nil {
		return nil, nil, fmt.Errorf("read %d postings groups: %w", len(touched), err)
	}
	merged := map[groupKey][]postings.Posting{}
	var k groupKey
	var at string
	var data []byte
	var buf []postings.Posting
	var stale []string
	_, err = pgx.ForEachRow(rows, []any{&at, &k.group, &k.term, &data}, func() error {
		ps, lost := buf[:0], false
		err := postings.Decode(data, func(p postings.Posting) {
			if drop[p.Symbol] {
				lost = true
			} else {
				ps = append(ps, p)
			}
		})
		if lost || changed[k] {
			changed[k] = true
			merged[k] = append(merged[k], ps...)
			stale = append(stale, at)
		}
		buf = ps
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read %d postings groups: %w", len(touched), err)
	}
	return merged, stale, nil
}

// groupsOf are the distinct non-zero groups of had.
func groupsOf(had map[string]int64) []int64 {
	var out []int64
	for _, g := range had {
		if g != 0 {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
