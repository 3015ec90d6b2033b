package memory

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// uuidRE matches a full UUID in its canonical text form.
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// minPrefix is the shortest id prefix accepted in place of a full id.
const minPrefix = 4

// NormID checks that ref looks like a uuid or a prefix of one and returns it in
// lower case (the edge cache resolves prefixes against its own rows with it).
func NormID(ref string) (string, error) { return normID(ref) }

func normID(ref string) (string, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		return "", fmt.Errorf("empty id: %w", ErrInvalid)
	}
	if len(ref) > 36 {
		return "", fmt.Errorf("%q is not an id: %w", ref, ErrInvalid)
	}
	for _, r := range ref {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-') {
			return "", fmt.Errorf("%q is not an id: %w", ref, ErrInvalid)
		}
	}
	if len(ref) < 36 && len(strings.ReplaceAll(ref, "-", "")) < minPrefix {
		return "", fmt.Errorf("id prefix %q is too short (at least %d characters): %w", ref, minPrefix, ErrInvalid)
	}
	return ref, nil
}

// resolveID turns a full id or a unique prefix into the id of a row of table
// (memories or conflicts) in the project.
func (s *Store) resolveID(ctx context.Context, q querier, table, what, ref string) (string, error) {
	ref, err := normID(ref)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	var sql string
	if len(ref) == 36 {
		sql = `SELECT id::text FROM ` + table + ` WHERE repository_id = $1 AND id = $2::uuid`
	} else {
		sql = `SELECT id::text FROM ` + table + ` WHERE repository_id = $1 AND id::text LIKE $2 || '%' LIMIT 2`
	}
	rows, err := q.Query(ctx, sql, s.project, ref)
	if err != nil {
		return "", fmt.Errorf("look up %s %s: %w", what, ref, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("look up %s %s: %w", what, ref, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%s %s: %w", what, ref, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%s %s matches several (%s, %s, ...): give more characters: %w", what, ref, ids[0], ids[1], ErrAmbiguous)
}

// resolveMemory resolves a memory reference, telling a memory of another project
// (of the same tenant) apart from one that does not exist.
func (s *Store) resolveMemory(ctx context.Context, q querier, ref string) (string, error) {
	id, err := s.resolveID(ctx, q, "memories", "memory", ref)
	if !errors.Is(err, ErrNotFound) {
		return id, err
	}
	norm, _ := normID(ref)
	var other int64
	e := q.QueryRow(ctx, `SELECT repository_id FROM memories WHERE repository_id <> $1 AND id::text LIKE $2 || '%' LIMIT 1`,
		s.project, norm).Scan(&other)
	if e == nil {
		return "", fmt.Errorf("memory %s: %w (project %d)", ref, ErrOtherProject, other)
	}
	return "", err
}
