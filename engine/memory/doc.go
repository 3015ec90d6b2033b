// Package memory is spelunk's shared, conflict-aware memory for coding agents
// (docs/ARCHITECTURE.md §8): memories with append-only lineage, nuggets (last-write-wins
// key/value facts with history), state compilations, conflict detection on every
// write, human resolution of conflicts, and a one-round-trip briefing.
//
// Everything is scoped to a project (a repository row) and, through row-level
// security on the connection, to a tenant. A [Store] is the API; the CLI and the TUI
// call it and never speak SQL.
//
// Conflict detection: a new memory's embedding is compared, through the model's
// HNSW index, with the live memories of its project; candidates at or above the
// similarity threshold go to a [Judge] (by default [HeuristicJudge], see
// engine/memory/contradict). Contradicted memories and the new one become DISPUTED
// and share one open conflict: a memory contradicting members of an open conflict
// joins it rather than opening another. Pairs a person decided to keep both of are
// never flagged again.
package memory
