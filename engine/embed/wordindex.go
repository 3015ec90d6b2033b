package embed

import "hash/maphash"

// wordIndex maps the vocabulary's words to int32 values with open addressing
// over flat slices. A Go map of the 100k GloVe words took a search process
// ~10 ms to build (two hashes a word, growth, and its pointers for the
// collector to scan); this takes one hash a word and three allocations.
type wordIndex struct {
	seed  maphash.Seed
	mask  uint64
	slots []int32 // 1 + the entry's position in keys and vals; 0 is empty
	keys  []string
	vals  []int32
}

// newWordIndex returns an index sized for n words at a load of at most one half.
func newWordIndex(n int) *wordIndex {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return &wordIndex{
		seed:  maphash.MakeSeed(),
		mask:  uint64(size - 1),
		slots: make([]int32, size),
		keys:  make([]string, 0, n),
		vals:  make([]int32, 0, n),
	}
}

// add records word with value v; it reports false, changing nothing, when
// word is already there.
func (x *wordIndex) add(word string, v int32) bool {
	i := maphash.String(x.seed, word) & x.mask
	for ; x.slots[i] != 0; i = (i + 1) & x.mask {
		if x.keys[x.slots[i]-1] == word {
			return false
		}
	}
	x.keys = append(x.keys, word)
	x.vals = append(x.vals, v)
	x.slots[i] = int32(len(x.keys))
	return true
}

// entry is the position of word's entry, or -1.
func (x *wordIndex) entry(word string) int {
	for i := maphash.String(x.seed, word) & x.mask; x.slots[i] != 0; i = (i + 1) & x.mask {
		if e := int(x.slots[i] - 1); x.keys[e] == word {
			return e
		}
	}
	return -1
}

// get returns word's value.
func (x *wordIndex) get(word string) (int32, bool) {
	if e := x.entry(word); e >= 0 {
		return x.vals[e], true
	}
	return 0, false
}

// getBytes is get for a token's bytes, without allocating.
func (x *wordIndex) getBytes(word []byte) (int32, bool) {
	for i := maphash.Bytes(x.seed, word) & x.mask; x.slots[i] != 0; i = (i + 1) & x.mask {
		if e := int(x.slots[i] - 1); x.keys[e] == string(word) {
			return x.vals[e], true
		}
	}
	return 0, false
}
