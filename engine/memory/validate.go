package memory

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what a memory may hold.
const (
	// MaxContentBytes is the largest memory text: memories are statements, not
	// documents (a document belongs in the repository, and a memory may point to it).
	MaxContentBytes = 64 << 10
	// MaxNameBytes bounds authors, actors and nugget keys.
	MaxNameBytes = 200
	// MaxValueBytes bounds nugget values, notes, reasons and state fields.
	MaxValueBytes = 64 << 10
	// MaxParents bounds the parents of one memory.
	MaxParents = 32
	// MaxListItems bounds the blockers and priorities of a state.
	MaxListItems = 100
)

// checkText validates required free text: not blank, then as checkBytes.
func checkText(what, text string, limit int) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%s is empty: %w", what, ErrInvalid)
	}
	return checkBytes(what, text, limit)
}

// checkBytes validates text that may be empty: at most limit bytes, valid UTF-8
// without NUL bytes (which PostgreSQL cannot store).
func checkBytes(what, text string, limit int) error {
	if len(text) > limit {
		return fmt.Errorf("%s is %d bytes; the limit is %d bytes (%s): %w", what, len(text), limit, humanBytes(limit), ErrTooLarge)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("%s is not valid UTF-8: %w", what, ErrInvalid)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return fmt.Errorf("%s contains a NUL byte: %w", what, ErrInvalid)
	}
	return nil
}

func checkActor(actor string) error { return checkText("author", actor, MaxNameBytes) }

func checkReason(reason string) error { return checkText("reason", reason, MaxValueBytes) }

func humanBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
