package memory

import "time"

// Kind is what a memory records.
type Kind string

// The kinds of memory.
const (
	KindFact     Kind = "fact"
	KindDecision Kind = "decision"
	KindRule     Kind = "rule"
	KindEpisode  Kind = "episode"
)

// Kinds lists the valid kinds.
var Kinds = []Kind{KindFact, KindDecision, KindRule, KindEpisode}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Status is where a memory stands.
type Status string

// The statuses of a memory. ACTIVE, DISPUTED, PENDING_EMBEDDING and NEEDS_REVIEW
// memories are live (briefed, searched); SUPERSEDED and INVALIDATED ones are kept
// for lineage. NEEDS_REVIEW is an ACTIVE memory whose anchored code changed, was
// removed or renamed since it was written (anchors.go).
const (
	StatusActive           Status = "ACTIVE"
	StatusSuperseded       Status = "SUPERSEDED"
	StatusDisputed         Status = "DISPUTED"
	StatusInvalidated      Status = "INVALIDATED"
	StatusPendingEmbedding Status = "PENDING_EMBEDDING"
	StatusNeedsReview      Status = "NEEDS_REVIEW"
)

// Statuses lists the valid statuses.
var Statuses = []Status{StatusActive, StatusSuperseded, StatusDisputed, StatusInvalidated, StatusPendingEmbedding, StatusNeedsReview}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Memory is one recorded statement.
type Memory struct {
	ID              string     `json:"id" db:"id"`
	Kind            Kind       `json:"kind" db:"kind"`
	Author          string     `json:"author" db:"author"`
	Content         string     `json:"content" db:"content"`
	Status          Status     `json:"status" db:"status"`
	ParentIDs       []string   `json:"parent_ids" db:"parent_ids"`
	SupersededBy    string     `json:"superseded_by,omitempty" db:"superseded_by"`
	StatusBy        string     `json:"status_by,omitempty" db:"status_by"`
	StatusReason    string     `json:"status_reason,omitempty" db:"status_reason"`
	StatusAt        *time.Time `json:"status_at,omitempty" db:"status_at"`
	TombstonedAt    *time.Time `json:"tombstoned_at,omitempty" db:"tombstoned_at"`
	TombstoneReason string     `json:"tombstone_reason,omitempty" db:"tombstone_reason"`
	CreatedAt       time.Time  `json:"created_at" db:"created_at"`
	// Anchors are the definitions and files the memory is about (anchors.go);
	// filled by the reads that show them, not by every query.
	Anchors []Anchor `json:"anchors,omitempty" db:"-"`
}

// Event is one audited status change of a memory.
type Event struct {
	ID         int64     `json:"id" db:"id"`
	MemoryID   string    `json:"memory_id" db:"memory_id"`
	Action     string    `json:"action" db:"action"`
	FromStatus Status    `json:"from_status,omitempty" db:"from_status"`
	ToStatus   Status    `json:"to_status,omitempty" db:"to_status"`
	Actor      string    `json:"actor" db:"actor"`
	Reason     string    `json:"reason,omitempty" db:"reason"`
	ConflictID string    `json:"conflict_id,omitempty" db:"conflict_id"`
	At         time.Time `json:"at" db:"at"`
}

// The actions recorded in events.
const (
	ActionAdd        = "add"
	ActionDispute    = "dispute"
	ActionSupersede  = "supersede"
	ActionInvalidate = "invalidate"
	ActionEmbedded   = "embedded"
	ActionResolve    = "resolve"
	ActionUndo       = "undo"
	ActionStale      = "stale"   // an anchored definition changed: to NEEDS_REVIEW
	ActionConfirm    = "confirm" // a person re-pinned the anchors: back to ACTIVE
)

// Ancestor is a memory in another's lineage, Depth 1 being a parent.
type Ancestor struct {
	Memory
	Depth int `json:"depth" db:"depth"`
}

// Lineage is a memory with everything it descends from and what replaced it.
type Lineage struct {
	Memory Memory `json:"memory"`
	// Ancestors are the parents, their parents and so on, nearest first.
	Ancestors []Ancestor `json:"ancestors"`
	// Successors is the chain of memories that superseded this one, in order.
	Successors []Memory `json:"successors"`
	// Children are memories that name this one as a parent (corrections, merges).
	Children []Memory `json:"children"`
	Events   []Event  `json:"events"`
}

// ConflictStatus is open until a person resolves the conflict.
type ConflictStatus string

// The statuses of a conflict.
const (
	ConflictOpen     ConflictStatus = "open"
	ConflictResolved ConflictStatus = "resolved"
)

// Conflict is a group of memories that contradict each other.
type Conflict struct {
	ID         string         `json:"id" db:"id"`
	MemoryIDs  []string       `json:"memory_ids" db:"memory_ids"`
	Similarity float64        `json:"similarity" db:"similarity"`
	Reason     string         `json:"reason" db:"reason"`
	Status     ConflictStatus `json:"status" db:"status"`
	Resolution string         `json:"resolution,omitempty" db:"resolution"`
	Resolver   string         `json:"resolver,omitempty" db:"resolver"`
	Note       string         `json:"note,omitempty" db:"note"`
	CreatedAt  time.Time      `json:"created_at" db:"created_at"`
	ResolvedAt *time.Time     `json:"resolved_at,omitempty" db:"resolved_at"`
}

// ConflictDetail is a conflict with its memories, in the conflict's order (side a
// first).
type ConflictDetail struct {
	Conflict
	Memories []Memory `json:"memories"`
}

// Nugget is the current value of a project-wide key.
type Nugget struct {
	Key       string    `json:"key" db:"key"`
	Value     string    `json:"value" db:"value"`
	Author    string    `json:"author" db:"author"`
	UpdatedAt time.Time `json:"updated_at" db:"updated_at"`
}

// NuggetVersion is one write of a nugget.
type NuggetVersion struct {
	ID        int64     `json:"id" db:"id"`
	Key       string    `json:"key" db:"key"`
	Value     string    `json:"value" db:"value"`
	Author    string    `json:"author" db:"author"`
	WrittenAt time.Time `json:"written_at" db:"written_at"`
}

// State is a compilation of where the project stands.
type State struct {
	ID         int64     `json:"id" db:"id"`
	Summary    string    `json:"summary" db:"summary"`
	Blockers   []string  `json:"blockers" db:"blockers"`
	Priorities []string  `json:"priorities" db:"priorities"`
	Author     string    `json:"author" db:"author"`
	CompiledAt time.Time `json:"compiled_at" db:"compiled_at"`
}
