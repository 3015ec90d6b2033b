package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFloat16Known(t *testing.T) {
	tests := []struct {
		f    float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},                          // largest finite half
		{65520, 0x7c00},                          // rounds up to +Inf
		{1e6, 0x7c00},                            // overflow
		{-1e6, 0xfc00},                           // negative overflow
		{float32(math.Inf(1)), 0x7c00},           // +Inf
		{6.103515625e-05, 0x0400},                // smallest normal
		{5.960464477539063e-08, 0x0001},          // smallest subnormal
		{2.9802322387695312e-08, 0x0000},         // half of it: tie, rounds to even (0)
		{4.470348358154297e-08, 0x0001},          // 0.75 of it rounds up
		{1e-10, 0x0000},                          // underflow
		{1.0009765625, 0x3c01},                   // 1 + 2^-10, exact
		{1.00048828125, 0x3c00},                  // 1 + 2^-11: tie, to even
		{1.00146484375, 0x3c02},                  // 1 + 3·2^-11: tie, to even (up)
		{0.333251953125, 0x3555},                 // exact 1/3 approximation
		{-0.00006103515625, 0x8400},              // negative smallest normal
		{float32(3.0517578125e-05), 0x0200},      // subnormal, exact
		{float32(6.097555160522461e-05), 0x03ff}, // largest subnormal
	}
	for _, tt := range tests {
		if got := float32ToHalf(tt.f); got != tt.want {
			t.Errorf("float32ToHalf(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
	if h := float32ToHalf(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("float32ToHalf(NaN) = %#04x, want a NaN", h)
	}
}

// TestFloat16RoundTrip checks every binary16 value: decoding is exact and
// encoding the result gives the same bits back.
func TestFloat16RoundTrip(t *testing.T) {
	for i := range 1 << 16 {
		h := uint16(i)
		f := halfToFloat32(h)
		if math.IsNaN(float64(f)) {
			if g := float32ToHalf(f); g&0x7c00 != 0x7c00 || g&0x3ff == 0 {
				t.Errorf("NaN %#04x round-trips to %#04x", h, g)
			}
			continue
		}
		if got := float32ToHalf(f); got != h {
			t.Errorf("float32ToHalf(halfToFloat32(%#04x) = %g) = %#04x", h, f, got)
		}
		if tbl := halfTable()[h]; math.Float32bits(tbl) != math.Float32bits(f) {
			t.Errorf("halfTable[%#04x] = %g, want %g", h, tbl, f)
		}
	}
}

// TestFloat16Nearest checks random float32 values against a brute-force
// nearest-even reference over the neighbouring half values.
func TestFloat16Nearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200000 {
		f := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-8)))
		h := float32ToHalf(f)
		got := float64(halfToFloat32(h))
		if math.IsInf(got, 0) {
			if math.Abs(float64(f)) < 65504 {
				t.Fatalf("float32ToHalf(%g) overflowed", f)
			}
			continue
		}
		err := math.Abs(got - float64(f))
		for _, n := range []uint16{h - 1, h + 1} {
			nv := float64(halfToFloat32(n))
			if n&0x7fff >= 0x7c00 || math.Signbit(nv) != math.Signbit(got) && nv != 0 {
				continue
			}
			if ne := math.Abs(nv - float64(f)); ne < err || (ne == err && n&1 == 0) {
				t.Fatalf("float32ToHalf(%g) = %#04x (%g), but %#04x (%g) is nearer or the even tie", f, h, got, n, nv)
			}
		}
	}
}
