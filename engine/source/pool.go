package source

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// forEachIndex calls do(w, i) for every i in [0, n) on a few goroutines, each
// with its own worker state w from newWorker (a reader with its own buffer, so
// the workers share nothing). Indices are handed out one at a time, so a slow
// file holds up only its own worker; once ctx is done no further index is
// handed out and forEachIndex returns when the running calls finish.
func forEachIndex[W any](ctx context.Context, n int, newWorker func() W, do func(w W, i int)) {
	workers := min(max(runtime.GOMAXPROCS(0), 2), 8, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				do(w, i)
			}
		}()
	}
	wg.Wait()
}
