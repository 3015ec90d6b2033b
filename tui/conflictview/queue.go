package conflictview

import (
	"sort"
	"time"
)

// Side is one memory of a conflict, with its lineage.
type Side struct {
	ID        string
	Kind      string
	Author    string
	Status    string
	Content   string
	CreatedAt time.Time
	Parents   []string   // the memories this one corrects or merges
	Lineage   []Ancestor // parents, their parents..., nearest first
}

// Ancestor is a memory in a side's lineage.
type Ancestor struct {
	ID        string
	Author    string
	Status    string
	Content   string
	CreatedAt time.Time
	Depth     int // 1 = parent
}

// Conflict is an item of the queue: an open group of memories that contradict
// each other (a dispute), or a memory whose anchored code changed (Stale; ID is
// the memory's, Sides its one memory, Anchors what changed).
type Conflict struct {
	ID         string
	Sides      []Side // side A first
	Similarity float64
	Reason     string
	CreatedAt  time.Time
	Stale      bool
	Anchors    []Anchor
}

// Anchor is a definition or file a stale memory is anchored to.
type Anchor struct {
	Path, Name string
	State      string // current, changed, removed, renamed
	OldPath    string // renamed: where it was
	Diff       string // changed or renamed definition: unified diff, pinned → now
}

// Action is how a conflict is resolved.
type Action string

// The resolutions of docs/ARCHITECTURE.md §8.
const (
	KeepOne    Action = "keep"       // Memory stays; the others are superseded
	KeepBoth   Action = "both"       // all stay, never flagged again
	Merge      Action = "merge"      // Text becomes a new memory replacing them all
	Invalidate Action = "invalidate" // Memory is invalidated; the others stay
	// The actions on a stale memory.
	Confirm Action = "confirm" // it still holds: its anchors are re-pinned
	Edit    Action = "edit"    // Text becomes a new memory superseding it
)

// Resolution is a person's decision on a conflict.
type Resolution struct {
	Action Action
	Memory string // the side kept (KeepOne) or invalidated (Invalidate)
	Text   string // the merged memory (Merge)
	Note   string // why, recorded with the resolution
}

// resolved is an entry of the undo stack: the conflict, where it stood in the
// queue and how it was resolved.
type resolved struct {
	c   Conflict
	at  int
	res Resolution
}

// Queue is the conflict queue as a pure state type (no UI, no I/O), after
// lazygit's merge-conflict state: navigation, resolution and undo are plain
// methods with table-driven tests.
type Queue struct {
	items   []Conflict
	cur     int
	done    []resolved
	skipped int
}

// NewQueue orders conflicts oldest first (ties by id, so the order is stable).
func NewQueue(items []Conflict) *Queue {
	q := &Queue{}
	q.Reset(items)
	return q
}

func sortOldest(items []Conflict) {
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].CreatedAt.Equal(items[j].CreatedAt) {
			return items[i].CreatedAt.Before(items[j].CreatedAt)
		}
		return items[i].ID < items[j].ID
	})
}

// Reset replaces the open conflicts (after a reload), keeping the cursor on the
// same conflict when it is still open. The undo stack is kept.
func (q *Queue) Reset(items []Conflict) {
	cur := ""
	if c, ok := q.Current(); ok {
		cur = c.ID
	}
	q.items = append([]Conflict(nil), items...)
	sortOldest(q.items)
	q.cur = 0
	for i, c := range q.items {
		if c.ID == cur {
			q.cur = i
		}
	}
}

// Len is the number of open conflicts.
func (q *Queue) Len() int { return len(q.items) }

// Pos is the 0-based position of the current conflict.
func (q *Queue) Pos() int { return q.cur }

// Resolved is how many conflicts were resolved (and not undone) in this session.
func (q *Queue) Resolved() int { return len(q.done) }

// Skipped is how many times the user skipped a conflict.
func (q *Queue) Skipped() int { return q.skipped }

// Current is the conflict shown.
func (q *Queue) Current() (Conflict, bool) {
	if q == nil || q.cur < 0 || q.cur >= len(q.items) {
		return Conflict{}, false
	}
	return q.items[q.cur], true
}

// Items returns the open conflicts in queue order.
func (q *Queue) Items() []Conflict { return append([]Conflict(nil), q.items...) }

// Next moves to the next conflict, wrapping around.
func (q *Queue) Next() {
	if len(q.items) > 0 {
		q.cur = (q.cur + 1) % len(q.items)
	}
}

// Prev moves to the previous conflict, wrapping around.
func (q *Queue) Prev() {
	if len(q.items) > 0 {
		q.cur = (q.cur + len(q.items) - 1) % len(q.items)
	}
}

// Skip leaves the current conflict open and moves on.
func (q *Queue) Skip() {
	if len(q.items) > 1 {
		q.skipped++
	}
	q.Next()
}

// Resolve records that the conflict id was resolved: it leaves the queue (the next
// one takes its place) and goes on the undo stack. It reports false when id is not
// in the queue.
func (q *Queue) Resolve(id string, res Resolution) bool {
	for i, c := range q.items {
		if c.ID != id {
			continue
		}
		q.done = append(q.done, resolved{c: c, at: i, res: res})
		q.items = append(q.items[:i], q.items[i+1:]...)
		if i < q.cur {
			q.cur-- // stay on the same conflict
		}
		if q.cur >= len(q.items) {
			q.cur = max(0, len(q.items)-1)
		}
		return true
	}
	return false
}

// Drop takes item id out of the queue without an undo entry (a review's
// confirm or edit is not undone from here). It reports false when id is not in
// the queue.
func (q *Queue) Drop(id string) bool {
	for i, c := range q.items {
		if c.ID != id {
			continue
		}
		q.items = append(q.items[:i], q.items[i+1:]...)
		if i < q.cur {
			q.cur--
		}
		if q.cur >= len(q.items) {
			q.cur = max(0, len(q.items)-1)
		}
		return true
	}
	return false
}

// LastResolved is the top of the undo stack.
func (q *Queue) LastResolved() (Conflict, Resolution, bool) {
	if len(q.done) == 0 {
		return Conflict{}, Resolution{}, false
	}
	d := q.done[len(q.done)-1]
	return d.c, d.res, true
}

// Undo puts the last resolved conflict back where it was and makes it current.
func (q *Queue) Undo() (Conflict, bool) {
	if len(q.done) == 0 {
		return Conflict{}, false
	}
	d := q.done[len(q.done)-1]
	q.done = q.done[:len(q.done)-1]
	at := min(d.at, len(q.items))
	q.items = append(q.items[:at], append([]Conflict{d.c}, q.items[at:]...)...)
	q.cur = at
	return d.c, true
}
