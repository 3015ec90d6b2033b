package pg

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// duplicateCodes are the SQLSTATEs of an object that exists already:
// duplicate_database, _object (a role), _table, _schema, _function, and
// unique_violation, which is what a catalog's unique index raises when two
// sessions create the same database, role or extension at once (both passed
// their IF NOT EXISTS check before either committed).
var duplicateCodes = map[string]bool{
	"42P04": true, "42710": true, "42P07": true, "42P06": true, "42723": true, "23505": true,
}

// IsDuplicate reports whether err says that what was being created exists
// already: the one test of every first-run step that two processes may race
// on (issue 36, 9).
func IsDuplicate(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && duplicateCodes[pgErr.Code]
}
