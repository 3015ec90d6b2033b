package embed

import (
	"encoding/binary"
	"hash/crc32"
	"math"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

// appendCRC appends the file checksum to body, as appendGloVeFile does.
func appendCRC(body []byte) []byte {
	b := append([]byte(nil), body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}
