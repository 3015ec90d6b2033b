package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestDenseChannelAnswersOnInstalledPgvector runs the dense channel alone on the
// installed pgvector: the iterative-scan setting is issued only where
// pg.HasIterativeScan allows it, and any failure is reported, never dropped
// (issue 11: on pgvector 0.7 with PostgreSQL 15+ the setting aborted the
// transaction and the channel came back empty).
func TestDenseChannelAnswersOnInstalledPgvector(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	v, err := pg.VectorVersion(ctx, fx.DB.Pool)
	if err != nil {
		t.Fatal(err)
	}
	s := New(fx.DB, fx.RepoID, fx.Emb)
	resp, err := s.Search(ctx, "retry a failed call with exponential backoff", Options{Channels: []Channel{Dense}})
	if err != nil {
		t.Fatal(err)
	}
	if why, down := resp.Unavailable[Dense]; down {
		t.Fatalf("pgvector %s: dense channel unavailable: %s", v, why)
	}
	if len(resp.Results) == 0 {
		t.Fatalf("pgvector %s: the dense channel found nothing", v)
	}
	for _, r := range resp.Results {
		if r.Explain.Channels[Dense].Rank == 0 {
			t.Fatalf("%s not explained by the dense channel: %v", r.QualifiedName, r.Explain.Channels)
		}
	}
}

// A query embedder other than the index's model leaves the dense channel out
// with the reason, rather than comparing vectors of two spaces.
func TestDenseChannelRefusesAnotherModel(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	other := embed.NewHashing(fx.Emb.Dims() / 2)
	if other.Name() == fx.Emb.Name() {
		t.Fatalf("the other embedder has the index's name %s", other.Name())
	}
	resp, err := New(fx.DB, fx.RepoID, other).Search(ctx, "retry a failed call with exponential backoff", Options{})
	if err != nil {
		t.Fatal(err)
	}
	why := resp.Unavailable[Dense]
	if !strings.Contains(why, "embedded with "+fx.Emb.Name()) || !strings.Contains(why, other.Name()) {
		t.Fatalf("dense channel with another model: unavailable %q, want both model names", why)
	}
	if len(resp.Results) == 0 {
		t.Fatal("the other channels answered nothing")
	}
}

// A lazily loaded embedder is loaded once, by the dense channel; when it fails,
// the dense channel is unavailable with the reason and the others still answer.
func TestLazyEmbedderLoadsOnceForTheDenseChannel(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	loads := 0
	s := NewLazy(fx.DB, fx.RepoID, func() (Embedder, error) { loads++; return fx.Emb, nil })
	for range 2 {
		resp, err := s.Search(ctx, "retry a failed call with exponential backoff", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if why, down := resp.Unavailable[Dense]; down {
			t.Fatalf("dense channel unavailable with a lazy embedder: %s", why)
		}
	}
	if loads != 1 {
		t.Fatalf("the embedder was loaded %d times, want once", loads)
	}
	broken := NewLazy(fx.DB, fx.RepoID, func() (Embedder, error) { return nil, errors.New("no GloVe data") })
	resp, err := broken.Search(ctx, "retry a failed call with exponential backoff", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if why := resp.Unavailable[Dense]; !strings.Contains(why, "no GloVe data") || len(resp.Results) == 0 {
		t.Fatalf("failed loader: dense unavailable %q, %d results; want the reason and the other channels' results", why, len(resp.Results))
	}
}
