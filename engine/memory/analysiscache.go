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
// every store. It holds two generations of up to maxCachedAnalyses each: when
// the current one is full it becomes the old one (the one before is dropped),
// and a text found in the old one moves back. Starting over from nothing
// analysed again, after each maxCachedAnalyses new texts, the recent ones a
// push's next runs meet as candidates.
type analysisCache struct {
	mu       sync.Mutex
	cur, old map[Claim]*contradict.Analysis
}

var analyses = &analysisCache{cur: map[Claim]*contradict.Analysis{}}

func (c *analysisCache) get(cl Claim) *contradict.Analysis {
	c.mu.Lock()
	an, ok := c.cur[cl]
	if !ok {
		if an, ok = c.old[cl]; ok {
			c.putLocked(cl, an)
		}
	}
	c.mu.Unlock()
	if ok {
		return an
	}
	an = contradict.Analyze(claimStatement(cl))
	c.mu.Lock()
	c.putLocked(cl, an)
	c.mu.Unlock()
	return an
}

func (c *analysisCache) putLocked(cl Claim, an *contradict.Analysis) {
	if len(c.cur) >= maxCachedAnalyses {
		c.old, c.cur = c.cur, make(map[Claim]*contradict.Analysis, maxCachedAnalyses)
	}
	c.cur[cl] = an
}
