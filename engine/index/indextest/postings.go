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
// md5 of every "term=tf/dl" of the symbol. A posting whose symbol is gone,
// whose symbol is not of its row's file, or a row whose count disagrees with
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
	file  int64
	terms []string
}

func postingLines(ctx context.Context, db *pg.DB, repoID int64) ([]string, error) {
	syms := map[int64]*postedSymbol{}
	rows, err := db.Pool.Query(ctx, `SELECT s.id, `+symKey("s")+`, s.file_id FROM symbols s WHERE s.repository_id = $1`, repoID)
	if err != nil {
		return nil, err
	}
	var id, file int64
	var key string
	if _, err := pgx.ForEachRow(rows, []any{&id, &key, &file}, func() error {
		syms[id] = &postedSymbol{key: key, file: file}
		return nil
	}); err != nil {
		return nil, err
	}
	var out []string
	var term string
	var n int
	var data []byte
	rows, err = db.Pool.Query(ctx, `SELECT file_id, term, n, data FROM postings WHERE repository_id = $1`, repoID)
	if err != nil {
		return nil, err
	}
	if _, err := pgx.ForEachRow(rows, []any{&file, &term, &n, &data}, func() error {
		count := 0
		err := postings.Decode(data, func(p postings.Posting) {
			count++
			s := syms[p.Symbol]
			switch {
			case s == nil:
				out = append(out, fmt.Sprintf("orphan posting | %s", term))
			case s.file != file:
				out = append(out, fmt.Sprintf("posting in another file's row | %s | %s", s.key, term))
			default:
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
