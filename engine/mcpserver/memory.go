package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// mem is the memory store of the call's repository.
func (s *Server) mem(ctx context.Context) MemoryStore { return s.repo(ctx).mem }

// maxMemoryText clips memory content in results.
const maxMemoryText = 2000

// MemoryRef is a memory as the tools return it.
type MemoryRef struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`
	Status       string    `json:"status" jsonschema:"ACTIVE, DISPUTED, SUPERSEDED, INVALIDATED, PENDING_EMBEDDING or NEEDS_REVIEW"`
	Author       string    `json:"author"`
	Content      string    `json:"content"`
	ParentIDs    []string  `json:"parent_ids,omitempty"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	StatusReason string    `json:"status_reason,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	AnchorMarks
}

// AnchorMarks say which code a memory is about and whether it still is as the
// memory was written against.
type AnchorMarks struct {
	// NeedsReview: code the memory is anchored to changed, was removed or
	// renamed since; treat the memory as uncertain until a person reviews it.
	NeedsReview bool        `json:"needs_review,omitempty"`
	Anchors     []AnchorOut `json:"anchors,omitempty"`
}

// AnchorOut is one anchor of a memory.
type AnchorOut struct {
	Path  string `json:"path"`
	Name  string `json:"name,omitempty"`
	State string `json:"state" jsonschema:"current, changed, removed or renamed"`
}

func anchorMarks(st memory.Status, as []memory.Anchor) AnchorMarks {
	out := AnchorMarks{NeedsReview: st == memory.StatusNeedsReview}
	for _, a := range as {
		out.Anchors = append(out.Anchors, AnchorOut{Path: a.Path, Name: a.Name, State: string(a.State)})
		out.NeedsReview = out.NeedsReview || a.State != memory.AnchorCurrent
	}
	return out
}

func memRef(m memory.Memory) MemoryRef {
	return MemoryRef{ID: m.ID, Kind: string(m.Kind), Status: string(m.Status), Author: m.Author, Content: clip(m.Content, maxMemoryText),
		ParentIDs: m.ParentIDs, SupersededBy: m.SupersededBy, StatusReason: m.StatusReason, CreatedAt: m.CreatedAt,
		AnchorMarks: anchorMarks(m.Status, m.Anchors)}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// author is the author argument, else the connected client's name.
func author(req *mcp.CallToolRequest, given string) (string, error) {
	if strings.TrimSpace(given) != "" {
		return text("author", given, maxNameBytes, true)
	}
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return clip("agent:"+p.ClientInfo.Name, maxNameBytes-3), nil
		}
	}
	return "agent:mcp", nil
}

// memError turns the memory store's sentinel errors into advice for the agent.
func memError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, memory.ErrOtherProject):
		// Say no more than for an id that does not exist: the server's scope is
		// this project, and another project's ids are not its business.
		return errors.New("memory not found in this project (ids come from remember, recall, briefing or list_conflicts)")
	case errors.Is(err, memory.ErrNotFound):
		return fmt.Errorf("%w (no such memory or conflict in this project; ids come from remember, recall, briefing or list_conflicts)", err)
	}
	return err
}

// disputed adds to the refusal to supersede or invalidate a DISPUTED memory
// (an agent's, always, through this server) the tool that can decide, when the
// server lets agents resolve conflicts.
func (s *Server) disputed(err error) error {
	if errors.Is(err, memory.ErrDisputed) && s.cfg.AllowResolve {
		return fmt.Errorf("%w (this server was started with --allow-resolve: resolve_conflict decides the conflict as a whole)", err)
	}
	return err
}

// AuthorArg is the author argument of the memory tools that write.
type AuthorArg struct {
	Author string `json:"author,omitempty"` // default: the client's name
}

// remember

// RememberIn is the input of remember.
type RememberIn struct {
	RepoArg
	Text string `json:"text" jsonschema:"at most 64 KiB"`
	Kind string `json:"kind,omitempty" jsonschema:"default fact"`
	AuthorArg
	Parents []string `json:"parents,omitempty" jsonschema:"memory ids it corrects or refines"`
	Anchors []string `json:"anchors,omitempty" jsonschema:"code it is about (Type.Method, path, path:line): reviewed when it changes"`
}

// ConflictOut is a memory conflict.
type ConflictOut struct {
	ID         string      `json:"id"`
	Status     string      `json:"status" jsonschema:"open or resolved"`
	Similarity float64     `json:"similarity"`
	Reason     string      `json:"reason"`
	Resolution string      `json:"resolution,omitempty"`
	Resolver   string      `json:"resolver,omitempty"`
	Memories   []MemoryRef `json:"memories,omitempty"`
}

func conflictOut(c memory.Conflict, ms []memory.Memory) ConflictOut {
	out := ConflictOut{ID: c.ID, Status: string(c.Status), Similarity: round3(c.Similarity), Reason: c.Reason, Resolution: c.Resolution, Resolver: c.Resolver}
	for _, m := range ms {
		out.Memories = append(out.Memories, memRef(m))
	}
	return out
}

// RememberOut is the output of remember.
type RememberOut struct {
	ID         string       `json:"id"`
	Status     string       `json:"status" jsonschema:"ACTIVE, or DISPUTED when it contradicts another memory, or PENDING_EMBEDDING"`
	ConflictID string       `json:"conflict_id,omitempty"`
	Conflict   *ConflictOut `json:"conflict,omitempty"`
	Corrected  []string     `json:"corrected,omitempty" jsonschema:"parents this memory contradicts, now superseded by it (when queued: as checked locally, superseded once the write syncs)"`
	Queued     bool         `json:"queued,omitempty" jsonschema:"the shared memory server is unreachable: stored locally, checked for conflicts when it syncs"`
	Anchors    []AnchorOut  `json:"anchors,omitempty" jsonschema:"the definitions and files it is anchored to"`
	Note       string       `json:"note,omitempty"`
}

func (s *Server) remember(ctx context.Context, req *mcp.CallToolRequest, in RememberIn) (RememberOut, error) {
	var out RememberOut
	kind := memory.Kind(in.Kind)
	if kind == "" {
		kind = memory.KindFact
	}
	if !kind.Valid() {
		return out, argError("kind must be fact, decision, rule or episode (got %q)", in.Kind)
	}
	if _, err := text("text", in.Text, memory.MaxContentBytes, true); err != nil {
		return out, err
	}
	if len(in.Anchors) > memory.MaxAnchors {
		return out, argError("at most %d anchors (got %d)", memory.MaxAnchors, len(in.Anchors))
	}
	for _, a := range in.Anchors {
		if _, err := text("anchors", a, maxNameBytes, true); err != nil {
			return out, err
		}
	}
	who, err := author(req, in.Author)
	if err != nil {
		return out, err
	}
	a, err := s.mem(ctx).Add(ctx, memory.NewMemory{Kind: kind, Author: who, Text: in.Text, Parents: in.Parents, Anchors: in.Anchors})
	if err != nil {
		return out, memError(err)
	}
	out.ID, out.Status, out.ConflictID, out.Corrected, out.Queued = a.Memory.ID, string(a.Memory.Status), a.ConflictID, a.Corrected, a.Queued
	out.Anchors = anchorMarks(a.Memory.Status, a.Memory.Anchors).Anchors
	switch {
	case a.Queued:
		out.Note = queuedNote(len(a.Corrected))
	case a.ConflictID != "":
		d, err := s.mem(ctx).Conflict(ctx, a.ConflictID)
		if err != nil {
			return out, memError(err)
		}
		c := conflictOut(d.Conflict, d.Memories)
		out.Conflict = &c
		out.Note = fmt.Sprintf("DISPUTED: this contradicts %d other memor%s. A person resolves conflict %s in the spelunk TUI (Conflicts tab) or with `spelunk conflicts resolve %s`; until then treat both as uncertain.",
			len(d.MemoryIDs)-1, plural(len(d.MemoryIDs)-1, "y", "ies"), a.ConflictID, short(a.ConflictID))
	case a.Memory.Status == memory.StatusPendingEmbedding:
		out.Note = "PENDING_EMBEDDING: the embedder is unavailable; the memory is checked for conflicts once it is back"
	}
	return out, nil
}

// queuedNote tells an agent what a queued remember means.
func queuedNote(corrected int) string {
	note := "QUEUED: the shared memory server is unreachable; the memory is stored in the local cache and sent when it is back (spelunk sync status). Its conflict check runs then: a contradiction with another memory comes back DISPUTED on a later briefing."
	if corrected > 0 {
		note += fmt.Sprintf(" The %d parent%s in corrected contradict%s it by the local check and %s superseded when it syncs.",
			corrected, plural(corrected, "", "s"), plural(corrected, "s", ""), plural(corrected, "is", "are"))
	}
	return note
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// recall

// RecallIn is the input of recall.
type RecallIn struct {
	RepoArg
	Query string `json:"query" `
	Limit int    `json:"limit,omitempty" jsonschema:"1-40, default 10"`
}

// RecallHit is a memory found by recall.
type RecallHit struct {
	MemoryRef
	Score      float64 `json:"score"`
	Similarity float64 `json:"similarity"`
}

// RecallOut is the output of recall.
type RecallOut struct {
	Query string      `json:"query"`
	Hits  []RecallHit `json:"hits"`
	Dense bool        `json:"dense" jsonschema:"false when the embedder was unavailable and only words matched"`
}

func (s *Server) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallIn) (RecallOut, error) {
	q, err := text("query", in.Query, maxQueryBytes, true)
	if err != nil {
		return RecallOut{}, err
	}
	limit, err := limitArg("limit", in.Limit, 10, 40)
	if err != nil {
		return RecallOut{}, err
	}
	res, err := s.mem(ctx).Search(ctx, q, limit)
	if err != nil {
		return RecallOut{}, memError(err)
	}
	out := RecallOut{Query: res.Query, Dense: res.Dense, Hits: make([]RecallHit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, RecallHit{MemoryRef: memRef(h.Memory), Score: round3(h.Score), Similarity: round3(h.Similarity)})
	}
	return out, nil
}

// briefing

// BriefingIn is the input of briefing.
type BriefingIn struct {
	RepoArg
	Query string `json:"query,omitempty" jsonschema:"the task: rank by it (default: recent)"`
	Limit int    `json:"limit,omitempty" jsonschema:"1-100, default 10"`
}

// BriefMemory is a memory in a briefing.
type BriefMemory struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Status     string    `json:"status"`
	Author     string    `json:"author"`
	Content    string    `json:"content"`
	CreatedAt  time.Time `json:"created_at"`
	Similarity *float64  `json:"similarity,omitempty"`
	Score      float64   `json:"score"`
	AnchorMarks
}

// NuggetOut is a nugget's current value.
type NuggetOut struct {
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	Author    string    `json:"author"`
	UpdatedAt time.Time `json:"updated_at"`
}

// StateOut is the latest state compilation.
type StateOut struct {
	Summary    string    `json:"summary"`
	Blockers   []string  `json:"blockers,omitempty"`
	Priorities []string  `json:"priorities,omitempty"`
	Author     string    `json:"author"`
	CompiledAt time.Time `json:"compiled_at"`
}

// BriefingOut is the output of briefing.
type BriefingOut struct {
	Memories      []BriefMemory `json:"memories"`
	Nuggets       []NuggetOut   `json:"nuggets"`
	State         *StateOut     `json:"state,omitempty"`
	OpenConflicts int           `json:"open_conflicts" jsonschema:"conflicts waiting for a person"`
	Ranking       string        `json:"ranking" jsonschema:"similarity, or recent without a query or embedder"`
}

func (s *Server) briefing(ctx context.Context, _ *mcp.CallToolRequest, in BriefingIn) (BriefingOut, error) {
	q, err := text("query", in.Query, maxQueryBytes, false)
	if err != nil {
		return BriefingOut{}, err
	}
	limit, err := limitArg("limit", in.Limit, 10, 100)
	if err != nil {
		return BriefingOut{}, err
	}
	b, err := s.mem(ctx).Briefing(ctx, memory.BriefingOptions{Query: q, Limit: limit})
	if err != nil {
		return BriefingOut{}, memError(err)
	}
	out := BriefingOut{OpenConflicts: b.OpenConflicts, Ranking: b.Ranking, Memories: make([]BriefMemory, 0, len(b.Memories)), Nuggets: make([]NuggetOut, 0, len(b.Nuggets))}
	for _, m := range b.Memories {
		out.Memories = append(out.Memories, BriefMemory{ID: m.ID, Kind: string(m.Kind), Status: string(m.Status), Author: m.Author,
			Content: clip(m.Content, maxMemoryText), CreatedAt: m.CreatedAt, Similarity: m.Similarity, Score: round3(m.Score),
			AnchorMarks: anchorMarks(m.Status, m.Anchors)})
	}
	for _, n := range b.Nuggets {
		out.Nuggets = append(out.Nuggets, NuggetOut{Key: n.Key, Value: clip(n.Value, maxMemoryText), Author: n.Author, UpdatedAt: n.UpdatedAt})
	}
	if b.State != nil {
		out.State = &StateOut{Summary: clip(b.State.Summary, maxMemoryText), Blockers: b.State.Blockers, Priorities: b.State.Priorities,
			Author: b.State.Author, CompiledAt: b.State.CompiledAt}
	}
	return out, nil
}

// supersede_memory, invalidate_memory

// SupersedeIn is the input of supersede_memory.
type SupersedeIn struct {
	RepoArg
	OldID  string `json:"old_id" jsonschema:"id or unique prefix"`
	NewID  string `json:"new_id" `
	Reason string `json:"reason,omitempty"`
	AuthorArg
}

func (s *Server) supersede(ctx context.Context, req *mcp.CallToolRequest, in SupersedeIn) (MemoryRef, error) {
	for f, v := range map[string]string{"old_id": in.OldID, "new_id": in.NewID} {
		if _, err := text(f, v, maxNameBytes, true); err != nil {
			return MemoryRef{}, err
		}
	}
	who, err := author(req, in.Author)
	if err != nil {
		return MemoryRef{}, err
	}
	m, err := s.mem(ctx).Supersede(ctx, in.OldID, in.NewID, memory.AsAgent(who), in.Reason)
	if err != nil {
		return MemoryRef{}, s.disputed(memError(err))
	}
	return memRef(m), nil
}

// InvalidateIn is the input of invalidate_memory.
type InvalidateIn struct {
	RepoArg
	ID     string `json:"id" jsonschema:"id or unique prefix"`
	Reason string `json:"reason" `
	AuthorArg
}

func (s *Server) invalidate(ctx context.Context, req *mcp.CallToolRequest, in InvalidateIn) (MemoryRef, error) {
	if _, err := text("id", in.ID, maxNameBytes, true); err != nil {
		return MemoryRef{}, err
	}
	if _, err := text("reason", in.Reason, memory.MaxValueBytes, true); err != nil {
		return MemoryRef{}, err
	}
	who, err := author(req, in.Author)
	if err != nil {
		return MemoryRef{}, err
	}
	m, err := s.mem(ctx).Invalidate(ctx, in.ID, memory.AsAgent(who), in.Reason)
	if err != nil {
		return MemoryRef{}, s.disputed(memError(err))
	}
	return memRef(m), nil
}

// set_nugget

// NuggetIn is the input of set_nugget.
type NuggetIn struct {
	RepoArg
	Key   string `json:"key" jsonschema:"e.g. db.port"`
	Value string `json:"value"`
	AuthorArg
}

// NuggetSetOut is the output of set_nugget.
type NuggetSetOut struct {
	NuggetOut
	Applied bool `json:"applied" jsonschema:"false when a later write is current (this one is kept in the history)"`
}

func (s *Server) setNugget(ctx context.Context, req *mcp.CallToolRequest, in NuggetIn) (NuggetSetOut, error) {
	if _, err := text("key", in.Key, memory.MaxNameBytes, true); err != nil {
		return NuggetSetOut{}, err
	}
	if _, err := text("value", in.Value, memory.MaxValueBytes, false); err != nil {
		return NuggetSetOut{}, err
	}
	who, err := author(req, in.Author)
	if err != nil {
		return NuggetSetOut{}, err
	}
	r, err := s.mem(ctx).SetNugget(ctx, memory.NuggetWrite{Key: in.Key, Value: in.Value, Author: who})
	if err != nil {
		return NuggetSetOut{}, memError(err)
	}
	n := r.Nugget
	return NuggetSetOut{NuggetOut: NuggetOut{Key: n.Key, Value: clip(n.Value, maxMemoryText), Author: n.Author, UpdatedAt: n.UpdatedAt}, Applied: r.Applied}, nil
}

// list_conflicts

// ConflictsIn is the input of list_conflicts.
type ConflictsIn struct {
	RepoArg
	Status string `json:"status,omitempty" jsonschema:"default open"`
	Limit  int    `json:"limit,omitempty" jsonschema:"1-100, default 20"`
}

// ConflictsOut is the output of list_conflicts.
type ConflictsOut struct {
	Conflicts []ConflictOut `json:"conflicts"`
	Truncated bool          `json:"truncated,omitempty"`
}

func (s *Server) listConflicts(ctx context.Context, _ *mcp.CallToolRequest, in ConflictsIn) (ConflictsOut, error) {
	var st memory.ConflictStatus
	switch in.Status {
	case "", "open":
		st = memory.ConflictOpen
	case "resolved":
		st = memory.ConflictResolved
	case "all":
	default:
		return ConflictsOut{}, argError("status must be open, resolved or all (got %q)", in.Status)
	}
	limit, err := limitArg("limit", in.Limit, 20, maxLimit)
	if err != nil {
		return ConflictsOut{}, err
	}
	cs, err := s.mem(ctx).Conflicts(ctx, st)
	if err != nil {
		return ConflictsOut{}, memError(err)
	}
	out := ConflictsOut{Conflicts: make([]ConflictOut, 0, min(len(cs), limit))}
	if len(cs) > limit {
		cs, out.Truncated = cs[:limit], true
	}
	for _, c := range cs {
		d, err := s.mem(ctx).Conflict(ctx, c.ID)
		if err != nil {
			return ConflictsOut{}, memError(err)
		}
		out.Conflicts = append(out.Conflicts, conflictOut(d.Conflict, d.Memories))
	}
	return out, nil
}

// resolve_conflict

// ResolveIn is the input of resolve_conflict.
type ResolveIn struct {
	RepoArg
	ConflictID string `json:"conflict_id" jsonschema:"id or unique prefix"`
	Action     string `json:"action" jsonschema:"keep (memory wins), both, merge (text replaces all), invalidate (memory)"`
	Memory     string `json:"memory,omitempty" jsonschema:"a side (a, b, ...) or memory id"`
	Text       string `json:"text,omitempty" `
	Note       string `json:"note,omitempty"`
	AuthorArg
}

// ResolveOut is the output of resolve_conflict.
type ResolveOut struct {
	Conflict         ConflictOut `json:"conflict"`
	Merged           *MemoryRef  `json:"merged,omitempty"`
	MergedConflictID string      `json:"merged_conflict_id,omitempty" jsonschema:"the merged memory contradicts another: a new conflict"`
}

// ErrResolveNotAllowed is the tool error of resolve_conflict on a server started
// without AllowResolve.
var ErrResolveNotAllowed = errors.New("resolving a memory conflict needs a person: ask the user to resolve it in the spelunk TUI (run `spelunk`, Conflicts tab) or with `spelunk conflicts resolve ID`; this server was started without --allow-resolve")

func (s *Server) resolveConflict(ctx context.Context, req *mcp.CallToolRequest, in ResolveIn) (ResolveOut, error) {
	if !s.cfg.AllowResolve {
		return ResolveOut{}, ErrResolveNotAllowed
	}
	if _, err := text("conflict_id", in.ConflictID, maxNameBytes, true); err != nil {
		return ResolveOut{}, err
	}
	who, err := author(req, in.Author)
	if err != nil {
		return ResolveOut{}, err
	}
	r := memory.Resolution{Resolver: who, Note: in.Note, Memory: in.Memory, Text: in.Text}
	switch in.Action {
	case "keep":
		r.Action = memory.ResolveKeep
	case "both":
		r.Action = memory.ResolveKeepAll
	case "merge":
		r.Action = memory.ResolveMerge
	case "invalidate":
		r.Action = memory.ResolveInvalidate
	default:
		return ResolveOut{}, argError("action must be keep, both, merge or invalidate (got %q)", in.Action)
	}
	if (r.Action == memory.ResolveKeep || r.Action == memory.ResolveInvalidate) && strings.TrimSpace(in.Memory) == "" {
		return ResolveOut{}, argError("action %s needs memory: the side (a, b, ...) or a memory id", in.Action)
	}
	if r.Action == memory.ResolveMerge && strings.TrimSpace(in.Text) == "" {
		return ResolveOut{}, argError("action merge needs text: the statement that replaces the sides")
	}
	res, err := s.mem(ctx).Resolve(ctx, in.ConflictID, r)
	if err != nil {
		return ResolveOut{}, memError(err)
	}
	d, err := s.mem(ctx).Conflict(ctx, res.Conflict.ID)
	if err != nil {
		return ResolveOut{}, memError(err)
	}
	out := ResolveOut{Conflict: conflictOut(d.Conflict, d.Memories), MergedConflictID: res.MergedConflictID}
	if res.Merged != nil {
		m := memRef(*res.Merged)
		out.Merged = &m
	}
	return out, nil
}
