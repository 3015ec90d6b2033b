package memory

import (
	"sync"

	"github.com/spelunkhq/spelunk/engine/memory/contradict"
)

// maxCachedAnalyses bounds the analyses kept between writes (each is a few KB).
const maxCachedAnalyses = 4096

// analysisCache keeps the built-in judge's analyses of the texts it met, across
// writes: one add judges up to maxCandidates stored memories, the same popular
// ones again and again, and analysing a text is nearly all of a check's cost.
// An analysis depends on the claim alone and is only read, so one cache serves
// every store. When full it starts over (simple, and a working set that does
// not fit is analysed as before).
type analysisCache struct {
	mu sync.Mutex
	m  map[Claim]*contradict.Analysis
}

var analyses = &analysisCache{m: map[Claim]*contradict.Analysis{}}

func (c *analysisCache) get(cl Claim) *contradict.Analysis {
	c.mu.Lock()
	an, ok := c.m[cl]
	c.mu.Unlock()
	if ok {
		return an
	}
	an = contradict.Analyze(claimStatement(cl))
	c.mu.Lock()
	if len(c.m) >= maxCachedAnalyses {
		clear(c.m)
	}
	c.m[cl] = an
	c.mu.Unlock()
	return an
}
