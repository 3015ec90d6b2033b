package pg

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
)

// Vectors is a list of vectors to send as one vector[] parameter: the floats
// themselves, each vector a slice the caller holds (no copy is made).
//
// In binary it is encoded in one pass into a buffer grown once to its size.
// A []pgvector.Vector goes through pgx's generic array encoding: an element
// boxed by reflection each, and the parameter buffer regrown vector by vector
// (a run's ~3,700 vectors of 1.5 KB copied some five times over).
type Vectors [][]float32

// vectorArrayCodec is the codec of vector[]: pgx's array codec, but a Vectors
// value is encoded by Vectors' own plans.
type vectorArrayCodec struct {
	*pgtype.ArrayCodec
}

// PlanEncode plans a Vectors value by its own encoders and any other value as
// the array codec does.
func (c vectorArrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(Vectors); !ok {
		return c.ArrayCodec.PlanEncode(m, oid, format, value)
	}
	switch format {
	case pgtype.BinaryFormatCode:
		return encodePlanVectorsBinary{elementOID: c.ElementType.OID}
	case pgtype.TextFormatCode:
		// The text form (QueryExecModeExec sends every parameter so) is
		// pgvector's, element by element.
		if next := m.PlanEncode(oid, format, []pgvector.Vector(nil)); next != nil {
			return encodePlanVectorsText{next: next}
		}
	}
	return nil
}

// encodePlanVectorsBinary writes a Vectors value in the binary form of a
// one-dimensional vector[] (array_recv's): the header, then each vector as
// its length and vector_recv's form (dims, an unused 0, the floats).
type encodePlanVectorsBinary struct {
	elementOID uint32
}

func (p encodePlanVectorsBinary) Encode(value any, buf []byte) ([]byte, error) {
	vs := value.(Vectors)
	if vs == nil {
		return nil, nil // NULL, as for a nil slice
	}
	elems := 0 // each vector: its length, then vector_recv's form
	for i, v := range vs {
		if len(v) > math.MaxUint16 {
			return nil, fmt.Errorf("vector %d of %d: %d dimensions, more than a vector holds", i, len(vs), len(v))
		}
		elems += 8 + 4*len(v)
	}
	if len(vs) == 0 {
		// No dimensions: the empty array.
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(buf, 0), p.elementOID), nil
	}
	buf = slices.Grow(buf, 20+elems)
	buf = binary.BigEndian.AppendUint32(buf, 1) // dimensions
	buf = binary.BigEndian.AppendUint32(buf, 0) // no NULL
	buf = binary.BigEndian.AppendUint32(buf, p.elementOID)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(vs)))
	buf = binary.BigEndian.AppendUint32(buf, 1) // lower bound
	at := len(buf)
	buf = buf[:at+elems] // grown above: the elements are written in place
	for _, v := range vs {
		binary.BigEndian.PutUint32(buf[at:], uint32(4+4*len(v)))
		binary.BigEndian.PutUint16(buf[at+4:], uint16(len(v)))
		binary.BigEndian.PutUint16(buf[at+6:], 0)
		out := buf[at+8 : at+8+4*len(v)]
		for k, f := range v {
			binary.BigEndian.PutUint32(out[4*k:], math.Float32bits(f))
		}
		at += 8 + 4*len(v)
	}
	return buf, nil
}

// encodePlanVectorsText encodes a Vectors value as the []pgvector.Vector of
// the same floats.
type encodePlanVectorsText struct {
	next pgtype.EncodePlan
}

func (p encodePlanVectorsText) Encode(value any, buf []byte) ([]byte, error) {
	vs := value.(Vectors)
	if vs == nil {
		return nil, nil
	}
	pv := make([]pgvector.Vector, len(vs))
	for i, v := range vs {
		pv[i] = pgvector.NewVector(v)
	}
	return p.next.Encode(pv, buf)
}
