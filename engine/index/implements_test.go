package index_test

import (
	"context"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestGoImplementsSignatures: a type implements an interface when its methods have
// the interface's parameter and result types (names and spacing aside), counting
// the methods of embedded interfaces; one embedding an interface from outside the
// repository has an unknown method set and links nothing.
func TestGoImplementsSignatures(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"shape/iface.go": `package shape

import "io"

// Closer closes.
type Closer interface {
	// Close releases it.
	Close() error
}

type ReadCloser interface {
	Closer
	Read(p []byte) (n int, err error)
}

type Streamer interface {
	io.Reader
	Close() error
}

type Number interface{ ~int | ~float64 }
`,
		"shape/types.go": `package shape

type Good struct{}

func (Good) Close() error { return nil }

func (*Good) Read(buf []byte) (int, error) { return 0, nil }

type WrongSig struct{}

func (WrongSig) Close() error { return nil }

func (WrongSig) Read(p string) (int, error) { return 0, nil }

type Named struct{}

func (n *Named) Close() (err error) { return nil }

func (n *Named) Read(a []byte) (x, y int) { return 0, 0 }
`,
	})
	ctx := context.Background()
	if _, err := index.New(db, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT s.name || '->' || t.name FROM edges e
		JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
		WHERE e.kind = 'implements' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	// Named.Read returns (int, int), not (int, error).
	want := "Good->Closer Good->ReadCloser Named->Closer WrongSig->Closer"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("implements: %s, want %s", g, want)
	}
}
