package indextest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/postings"
)

// PostingLines renders the postings of repository repoID per symbol, decoded
// from their packed rows (engine/postings): "post | symbol | count | digest",
// where symbol is (path, kind, qualified name, start line) and the digest an
// md5 of every "term=tf/dl" of the symbol. The lines are the same however
// the rows group files (migration 0021: a row holds a term's postings of a
// group of files, and an incremental run's groups are not a clean run's). A
// posting whose symbol is gone, whose symbol's file is not of its row's group,
// a term's second posting of one symbol, or a row whose count disagrees with
// its data renders as a line of its own, which no index should have.
func PostingLines(t testing.TB, db *pg.DB, repoID int64) []string {
	t.Helper()
	lines, err := postingLines(context.Background(), db, repoID)
	if err != nil {
		t.Fatalf("postings: %v", err)
	}
	return lines
}

type postedSymbol struct {
	key   string
	group int64 // its file's postings group
	terms []string
}

func postingLines(ctx context.Context, db *pg.DB, repoID int64) ([]string, error) {
	syms := map[int64]*postedSymbol{}
	rows, err := db.Pool.Query(ctx, `SELECT s.id, `+symKey("s")+`, coalesce(f.postings_group, 0) FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id WHERE s.repository_id = $1`, repoID)
	if err != nil {
		return nil, err
	}
	var id, group int64
	var key string
	if _, err := pgx.ForEachRow(rows, []any{&id, &key, &group}, func() error {
		syms[id] = &postedSymbol{key: key, group: group}
		return nil
	}); err != nil {
		return nil, err
	}
	var out []string
	var term string
	var n int
	var data []byte
	rows, err = db.Pool.Query(ctx, `SELECT group_id, term, n, data FROM postings WHERE repository_id = $1`, repoID)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{} // term and symbol
	if _, err := pgx.ForEachRow(rows, []any{&group, &term, &n, &data}, func() error {
		count := 0
		err := postings.Decode(data, func(p postings.Posting) {
			count++
			s := syms[p.Symbol]
			switch {
			case s == nil:
				out = append(out, fmt.Sprintf("orphan posting | %s", term))
			case s.group != group:
				out = append(out, fmt.Sprintf("posting in another group's row | %s | %s", s.key, term))
			case seen[fmt.Sprint(term, "\x00", p.Symbol)]:
				out = append(out, fmt.Sprintf("posting twice | %s | %s", s.key, term))
			default:
				seen[fmt.Sprint(term, "\x00", p.Symbol)] = true
				s.terms = append(s.terms, fmt.Sprintf("%s=%d/%d", term, p.TF, p.DL))
			}
		})
		if err != nil || count != n {
			out = append(out, fmt.Sprintf("bad postings row | %s | n %d, decoded %d, %v", term, n, count, err))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, s := range syms {
		if len(s.terms) == 0 {
			continue
		}
		slices.Sort(s.terms)
		sum := md5.Sum([]byte(strings.Join(s.terms, " ")))
		out = append(out, fmt.Sprintf("post | %s | %d | %s", s.key, len(s.terms), hex.EncodeToString(sum[:])))
	}
	slices.Sort(out)
	return out, nil
}
