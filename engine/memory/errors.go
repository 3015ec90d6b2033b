package memory

import (
	"errors"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// Sentinel errors; check them with errors.Is. Messages wrapping them say which
// memory or conflict and what to do.
var (
	// ErrNotFound: no such memory, conflict, nugget or state in this project.
	ErrNotFound = pg.ErrNotFound
	// ErrInvalid: the input is malformed (empty text, unknown kind, ...).
	ErrInvalid = errors.New("invalid input")
	// ErrTooLarge: the text exceeds MaxContentBytes (or another stated limit).
	ErrTooLarge = errors.New("too large")
	// ErrAmbiguous: an id prefix matches more than one row.
	ErrAmbiguous = errors.New("ambiguous id prefix")
	// ErrOtherProject: a referenced memory belongs to another project.
	ErrOtherProject = errors.New("belongs to another project")
	// ErrAlreadySuperseded: the memory was superseded before.
	ErrAlreadySuperseded = errors.New("already superseded")
	// ErrAlreadyInvalidated: the memory was invalidated before.
	ErrAlreadyInvalidated = errors.New("already invalidated")
	// ErrNotLive: the memory is superseded or invalidated and cannot take that role.
	ErrNotLive = errors.New("not live")
	// ErrAlreadyResolved: the conflict is closed.
	ErrAlreadyResolved = errors.New("conflict already resolved")
	// ErrNotResolved: undo of a conflict that is open.
	ErrNotResolved = errors.New("conflict not resolved")
	// ErrNotMember: the memory named in a resolution is not part of the conflict.
	ErrNotMember = errors.New("not a member of the conflict")
	// ErrChanged: a memory changed since the resolution being undone.
	ErrChanged = errors.New("changed since")
)
