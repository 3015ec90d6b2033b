package memcache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// encodeVector packs a vector as little-endian float32s (nil stays NULL).
func encodeVector(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// appendVector appends the float32s packed in b to v (without a slice per
// vector: loading the index decodes every cached vector).
func appendVector(v []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		v = append(v, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return v
}

// localVector embeds text with the local embedder when it is the core's (the
// model the cached vectors came from): vectors of two models never mix. It
// returns nil when there is no such parity or the embedder is down.
func (c *Cache) localVector(ctx context.Context, text string) ([]float32, string, error) {
	if c.opts.Embedder == nil {
		return nil, "", nil
	}
	model, err := getMeta(ctx, c.db(), metaCoreModel)
	if err != nil {
		return nil, "", err
	}
	if model == "" || model != c.opts.Embedder.Name() {
		return nil, "", nil
	}
	vecs, err := c.opts.Embedder.Embed(ctx, []string{text})
	if errors.Is(err, embed.ErrUnavailable) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, "", fmt.Errorf("embed: embedder %s returned %d vectors for 1 text", model, len(vecs))
	}
	return vecs[0], model, nil
}
