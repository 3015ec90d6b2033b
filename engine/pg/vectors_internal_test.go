package pg

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
)

// vectorTypeMap is a type map with pgvector's types registered at made-up
// OIDs, as Open registers them.
func vectorTypeMap() *pgtype.Map {
	oids := [6]uint32{90001, 90002, 90003, 90004, 90005, 90006}
	st := openState{}
	for i := range oids {
		st.oids[i] = &oids[i]
	}
	m := pgtype.NewMap()
	st.registerVectorTypes(m)
	return m
}

// TestVectorsEncodeAsPgvector: Vectors encode to the bytes of the
// []pgvector.Vector of the same floats, in binary and in text, NULL included
// (an empty list is the empty array in either form).
func TestVectorsEncodeAsPgvector(t *testing.T) {
	m := vectorTypeMap()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 17} {
		vs := make(Vectors, n)
		pv := make([]pgvector.Vector, n)
		for i := range vs {
			vs[i] = make([]float32, 1+r.IntN(40))
			for k := range vs[i] {
				vs[i][k] = float32(r.NormFloat64())
			}
			pv[i] = pgvector.NewVector(vs[i])
		}
		for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			prefix := []byte("earlier parameters")
			got, err := m.Encode(90002, format, vs, bytes.Clone(prefix))
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Encode(90002, format, pv, bytes.Clone(prefix))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%d vectors, format %d: %x, want %x", n, format, got, want)
			}
		}
	}
	for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		if got, err := m.Encode(90002, format, Vectors(nil), nil); got != nil || err != nil {
			t.Errorf("format %d: nil encodes to %x (%v), want NULL", format, got, err)
		}
	}
}

func BenchmarkVectorsEncode(b *testing.B) {
	m := vectorTypeMap()
	vs := make(Vectors, 3700)
	for i := range vs {
		vs[i] = make([]float32, 384)
	}
	b.SetBytes(int64(len(vs) * (8 + 4*384)))
	for b.Loop() {
		if _, err := m.Encode(90002, pgtype.BinaryFormatCode, vs, make([]byte, 0, 256)); err != nil {
			b.Fatal(err)
		}
	}
}
