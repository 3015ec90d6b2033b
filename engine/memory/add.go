package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// NewMemory is what Add records.
type NewMemory struct {
	// ID is a client-generated id (a UUID; "" lets the core pick one). A memory
	// added twice with one ID is stored once: the second Add returns the first
	// (the edge cache's write queue replays on that).
	ID     string
	Kind   Kind
	Author string
	Text   string
	// Parents are the memories this one corrects or refines (ids or unique
	// prefixes), in the same project.
	Parents []string
	// Anchors are definitions or files the memory is about, beyond those its
	// text names (anchors.go: "Engine.ServeHTTP", "lib/router.js",
	// "billing/refund.go:40"); each must resolve in the project's index.
	Anchors []string `json:",omitempty"`
}

// Added is the outcome of Add.
type Added struct {
	Memory Memory `json:"memory"`
	// ConflictID is the open conflict the memory is part of ("" when none).
	ConflictID string `json:"conflict_id,omitempty"`
	// Corrected are parents the memory contradicts: a correction supersedes them.
	Corrected []string `json:"corrected,omitempty"`
	// Queued says the write waits in an edge cache's queue (memcache): the
	// core has not checked it yet, so ConflictID is empty and Corrected is the
	// cache's own check of the cached parents; the core's check at sync decides.
	Queued bool `json:"queued,omitempty"`
}

// Add records a memory and checks it for conflicts with the live memories of the
// project. When the embedder is unavailable the memory is stored as
// PENDING_EMBEDDING and checked by a later EmbedPending.
func (s *Store) Add(ctx context.Context, in NewMemory) (Added, error) {
	if err := validateNew(in); err != nil {
		return Added{}, fmt.Errorf("add memory: %w", err)
	}
	// The anchors read the index, not the memories: looked up before the
	// transaction, they hold no lock. (A replay, given its id, is looked up
	// first: one already stored is returned as it is, whatever its anchors.)
	var anchors *resolvedAnchors
	if in.ID == "" {
		var err error
		if anchors, err = s.lookupAnchors(ctx, s.db.Pool, in); err != nil {
			return Added{}, fmt.Errorf("add memory: %w", err)
		}
	}
	vec, model, err := s.embedOne(ctx, in.Text)
	if err != nil {
		return Added{}, fmt.Errorf("add memory: %w", err)
	}
	var out Added
	if in.ID == "" && len(in.Parents) == 0 {
		// Nothing to read under the lock before the row: the lock goes in the
		// row's round trip.
		err = pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
			var err error
			out, err = s.addRow(ctx, tx, in, vec, model, anchors, true)
			return err
		})
		if err != nil {
			return Added{}, fmt.Errorf("add memory: %w", err)
		}
		return out, nil
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if in.ID != "" {
			m, err := s.get(ctx, tx, in.ID)
			if err == nil {
				out = Added{Memory: m}
				return nil
			}
			if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		var err error
		out, err = s.addRow(ctx, tx, in, vec, model, anchors, false)
		return err
	})
	if err != nil {
		return Added{}, fmt.Errorf("add memory: %w", err)
	}
	return out, nil
}

// AddMany records memories in order in one transaction under the project's
// lock, with one embedding call: the edge cache's push of its queue, where a
// transaction per memory would be most of the cost. Each memory gets the checks
// Add makes (those before it in the batch included), set-wise where it can
// (addBatch); one given an id the project already has is left as it is (a
// replay). Any failure fails the whole batch.
func (s *Store) AddMany(ctx context.Context, ins []NewMemory) ([]Added, error) {
	texts := make([]string, len(ins))
	for i, in := range ins {
		if err := validateNew(in); err != nil {
			return nil, fmt.Errorf("add memory %d of %d: %w", i+1, len(ins), err)
		}
		texts[i] = in.Text
	}
	vecs, model, err := s.embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("add memories: %w", err)
	}
	var out []Added
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = s.addBatch(ctx, tx, ins, vecs, model)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("add memories: %w", err)
	}
	return out, nil
}

func validateNew(in NewMemory) error {
	if !in.Kind.Valid() {
		return fmt.Errorf("kind %q is not one of fact, decision, rule, episode: %w", in.Kind, ErrInvalid)
	}
	if err := checkActor(in.Author); err != nil {
		return err
	}
	if in.ID != "" && !uuidRE.MatchString(in.ID) {
		return fmt.Errorf("id %q is not a UUID: %w", in.ID, ErrInvalid)
	}
	if len(in.Parents) > MaxParents {
		return fmt.Errorf("%d parents; the limit is %d: %w", len(in.Parents), MaxParents, ErrTooLarge)
	}
	return checkText("memory text", in.Text, MaxContentBytes)
}

// embedOne embeds text with the store's embedder. A nil vector with a nil error
// means the embedder is unavailable (or absent): store the memory as pending.
func (s *Store) embedOne(ctx context.Context, text string) ([]float32, string, error) {
	vecs, model, err := s.embed(ctx, []string{text})
	if err != nil || vecs == nil {
		return nil, "", err
	}
	return vecs[0], model, nil
}

// embed embeds texts and registers the model. It returns nil vectors without an
// error when the embedder is absent or its backend is down (embed.ErrUnavailable).
func (s *Store) embed(ctx context.Context, texts []string) ([][]float32, string, error) {
	if s.emb == nil || len(texts) == 0 {
		return nil, "", nil
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if errors.Is(err, embed.ErrUnavailable) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, "", fmt.Errorf("embed: embedder %s returned %d vectors for %d texts", s.emb.Name(), len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return nil, "", fmt.Errorf("embed: embedder %s returned vectors of %d and %d dimensions", s.emb.Name(), len(vecs[0]), len(v))
		}
	}
	model := s.emb.Name()
	if err := s.ensureModel(ctx, model, len(vecs[0])); err != nil {
		return nil, "", err
	}
	return vecs, model, nil
}

func (s *Store) storeEmbedding(ctx context.Context, q querier, id, model string, vec []float32) error {
	_, err := q.Exec(ctx, storeEmbeddingSQL, s.project, id, model, pgvector.NewVector(vec))
	if err != nil {
		return fmt.Errorf("store embedding: %w", err)
	}
	return nil
}

// contentHash identifies a text: the same statement written twice has one hash.
func contentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}
