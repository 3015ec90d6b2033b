package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// AgentPrefix marks an author as an agent: "agent:claude-code". The MCP server
// names its client so by default, and every supersede or invalidate through it
// is an agent's whatever author it is given; a CLI caller names an agent the
// same way (--author agent:NAME, or $SPELUNK_AUTHOR). Any other author is a
// person.
const AgentPrefix = "agent:"

// IsAgent says whether an author names an agent (AgentPrefix, any case).
func IsAgent(author string) bool {
	a := strings.TrimSpace(author)
	return len(a) >= len(AgentPrefix) && strings.EqualFold(a[:len(AgentPrefix)], AgentPrefix)
}

// AsAgent is author marked as an agent (unchanged when it already is one).
func AsAgent(author string) string {
	if IsAgent(author) {
		return author
	}
	return AgentPrefix + strings.TrimSpace(author)
}

// ErrDisputed: the memory is one side of an open conflict, which only a person
// resolves, and only as a whole (spelunk conflicts resolve, the TUI): superseding
// or invalidating one side would leave the conflict open with that side gone.
var ErrDisputed = errors.New("disputed: only a person resolves an open conflict")

// openConflictSQL finds the open conflict a memory is a side of.
const openConflictSQL = `SELECT id::text FROM conflicts
	WHERE repository_id = $1 AND status = 'open' AND $2::uuid = ANY(memory_ids)
	ORDER BY created_at LIMIT 1`

// refuseDisputed refuses an agent (IsAgent) to supersede or invalidate (verb) a
// DISPUTED memory: the conflict it is in is resolved whole, by a person. The
// message says what to do. A person may still: that is a person's decision.
func (s *Store) refuseDisputed(ctx context.Context, q querier, m Memory, verb, actor string) error {
	if m.Status != StatusDisputed || !IsAgent(actor) {
		return nil
	}
	var conflict string
	err := q.QueryRow(ctx, openConflictSQL, s.project, m.ID).Scan(&conflict)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("find the conflict of memory %s: %w", m.ID, err)
	}
	return DisputedError(m.ID, conflict, verb)
}

// DisputedError is the refusal to let an agent supersede or invalidate (verb) a
// DISPUTED memory of conflict (its id, or "" when unknown).
func DisputedError(memoryID, conflict, verb string) error {
	ref, resolve := "its conflict", "spelunk conflicts resolve ID` (`spelunk conflicts list` shows it)"
	if conflict != "" {
		ref, resolve = "conflict "+short(conflict), "spelunk conflicts resolve "+short(conflict)+"`"
	}
	return fmt.Errorf("memory %s is DISPUTED (%s is open) and an agent cannot %s it: only a person resolves a conflict, "+
		"as a whole, so that it is never left open with one side gone. Ask the user to resolve it in the spelunk TUI "+
		"(Conflicts tab) or with `%s; until then treat both sides as uncertain: %w",
		short(memoryID), ref, verb, resolve, ErrDisputed)
}
