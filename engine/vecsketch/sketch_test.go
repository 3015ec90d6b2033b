package vecsketch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dotRef is Dot as it was written first, an element indexed at a time: Dot
// must give its very floats (a pushed run's picks and the local recall's
// order depend on them).
func dotRef(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func TestDotSameFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 4, 5, 7, 64, 383, 384, 385, 1536} {
		for range 200 {
			a, b := randVec(r, n), randVec(r, n)
			if got, want := Dot(a, b), dotRef(a, b); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("dims %d: Dot = %v, want %v", n, got, want)
			}
		}
	}
	if got := Dot(make([]float32, 3), make([]float32, 4)); got != 0 {
		t.Fatalf("Dot of different lengths = %v, want 0", got)
	}
}

// BenchmarkDot: a query against 4,096 stored vectors of 384 dimensions
// (6 MB, more than a core's cache, as a pushed run's pool picks read them).
func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const dims, n = 384, 4096
	q, flat := randVec(r, dims), randVec(r, dims*n)
	var sink float64
	for i := 0; b.Loop(); i++ {
		j := (i * 2654435761) % n
		sink += Dot(q, flat[j*dims:(j+1)*dims])
	}
	_ = sink
}
