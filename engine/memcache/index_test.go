package memcache

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// TestLocalAddKeepsIndex: a local add appends its vector to the loaded index
// (here past exactBelow, so the sketch is built) rather than dropping it, and
// a read then answers as one from a freshly loaded index.
func TestLocalAddKeepsIndex(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewHashing(0)
	c, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "c.db()"), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := setMeta(ctx, c.db(), metaCoreModel, emb.Name()); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		for i := range exactBelow {
			text := fmt.Sprintf("memory %d about service %d and the deploy of queue %d", i, i%97, i%13)
			v, err := emb.Embed(ctx, []string{text})
			if err != nil {
				return err
			}
			m := memory.Memory{ID: newID(), Kind: memory.KindFact, Author: "agent:t", Content: text,
				Status: memory.StatusActive, CreatedAt: now.Add(-time.Duration(i+1) * time.Minute)}
			if err := putMemory(ctx, tx, m, now, emb.Name(), v[0]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const query = "the deploy key rotates every 90 days"
	if _, err := c.Recall(ctx, query, 5); err != nil { // loads the index
		t.Fatal(err)
	}
	added, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:t", Text: "the deploy key rotates every 90 days"})
	if err != nil {
		t.Fatal(err)
	}
	x := &c.vecs
	if !x.loaded || len(x.ids) != exactBelow+1 || len(x.sketch) != (exactBelow+1)*2*sketchWords(x.dims) {
		t.Fatalf("after a local add: loaded %v, %d vectors, %d sketch words; want the index kept with %d vectors and their sketches",
			x.loaded, len(x.ids), len(x.sketch), exactBelow+1)
	}
	got, err := c.Recall(ctx, query, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ID != added.ID {
		t.Fatalf("recall after the add: %v; want the added memory %s first", ids(got), added.ID)
	}
	x.invalidate()
	fresh, err := c.Recall(ctx, query, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), ids(fresh)) {
		t.Errorf("recall from the appended index %v, from a fresh load %v", ids(got), ids(fresh))
	}
}

func ids(ms []memory.BriefMemory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}
