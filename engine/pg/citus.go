package pg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5"
)

// ErrNoCitus means the database has no citus extension, so there is nothing to
// distribute the tables over.
var ErrNoCitus = errors.New("the database has no citus extension: install Citus from its packages on every node, " +
	"add citus to shared_preload_libraries, run CREATE EXTENSION citus in this database on every node, " +
	"and add the workers on the coordinator (SELECT citus_add_node('host', port)); see docs/OPERATIONS.md")

// referenceTables are spelunk's tables not keyed by repository: on Citus they
// are copied to every node. Every other table of the schema is distributed by
// repository_id, co-located with files, so that the rows of one repository
// live on one shard and every statement naming one repository runs there.
var referenceTables = []string{"repositories", "embedding_models", "spelunk_schema_migrations"}

// colocationAnchor is the first table distributed; the others are co-located
// with it.
const colocationAnchor = "files"

var plainTenant = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// TenantRole is the login role a tenant's connections act as on a Citus
// cluster. Citus opens its connections to the workers as the session's current
// role and sends no session setting with them, so a shard's row-level security
// policy, which compares tenant_id with the spelunk.tenant setting, would see
// none there: the tenant role carries it as its own default (ALTER ROLE SET),
// which a worker applies when Citus logs in as it.
func TenantRole(tenant string) string {
	if plainTenant.MatchString(tenant) {
		return AppRole + "_" + tenant
	}
	sum := sha256.Sum256([]byte(tenant))
	return AppRole + "_h" + hex.EncodeToString(sum[:8])
}

// DistributeReport is what Distribute found and did.
type DistributeReport struct {
	Citus       string   `json:"citus"`       // the extension's version
	Workers     int      `json:"workers"`     // active primary workers
	Reference   []string `json:"reference"`   // tables made reference tables now
	Distributed []string `json:"distributed"` // tables distributed by repository_id now
	Already     int      `json:"already"`     // tables that were already reference or distributed
	Roles       []string `json:"roles"`       // the tenants' login roles (created or kept)
}

// leakproofFunctions are the operators' functions migration 0001 marks
// LEAKPROOF on a superuser connection, so that the planner may use their
// indexes under row-level security; the shards on the workers need the same.
var leakproofFunctions = []string{
	"ts_match_vq(tsvector, tsquery)", "lower(text)", "similarity_op(text, text)",
	"word_similarity_op(text, text)", "arraycontains(anyarray, anyarray)", "arrayoverlap(anyarray, anyarray)",
}

// Distribute spreads a migrated spelunk database over the Citus cluster its
// URL is the coordinator of: reference tables for the tables not keyed by
// repository, every other table distributed by repository_id and co-located
// with files, and a login role per tenant of tenants (TenantRole). It is
// idempotent: a second run distributes only tables a later migration added,
// and creates the roles of new tenants. The tables move in one transaction.
func Distribute(ctx context.Context, url string, tenants []string) (DistributeReport, error) {
	var rep DistributeReport
	conn, err := ConnectOwner(ctx, url)
	if err != nil {
		return rep, err
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(ctx, `SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'citus'), '')`).Scan(&rep.Citus); err != nil {
		return rep, fmt.Errorf("look for the citus extension: %w", err)
	}
	if rep.Citus == "" {
		return rep, ErrNoCitus
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_dist_node
		WHERE noderole = 'primary' AND isactive AND groupid <> 0`).Scan(&rep.Workers); err != nil {
		return rep, fmt.Errorf("list the Citus workers: %w", err)
	}
	for _, t := range tenants {
		role, err := ensureTenantRole(ctx, conn, t)
		if err != nil {
			return rep, err
		}
		rep.Roles = append(rep.Roles, role)
	}
	if err := distributeTables(ctx, conn, &rep); err != nil {
		return rep, err
	}
	return rep, markWorkersLeakproof(ctx, conn)
}

// ensureTenantRole creates (or keeps) tenant's login role: a member of
// AppRole, so it holds the application's grants and owns nothing, with the
// tenant as its spelunk.tenant default. Citus propagates the role, its
// membership and its setting to every node.
func ensureTenantRole(ctx context.Context, conn *pgx.Conn, tenant string) (string, error) {
	role := TenantRole(tenant)
	id := pgx.Identifier{role}.Sanitize()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
		return "", fmt.Errorf("look for role %s: %w", role, err)
	}
	var setTenant string // quoted by the server: a tenant is any string
	if err := conn.QueryRow(ctx, `SELECT format('ALTER ROLE %I SET spelunk.tenant = %L', $1::text, $2::text)`, role, tenant).Scan(&setTenant); err != nil {
		return "", fmt.Errorf("tenant %q's role %s: %w", tenant, role, err)
	}
	stmts := []string{
		"GRANT " + pgx.Identifier{AppRole}.Sanitize() + " TO " + id,
		setTenant,
		"GRANT " + id + " TO current_user",
	}
	if !exists {
		stmts = append([]string{"CREATE ROLE " + id + " LOGIN"}, stmts...)
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("tenant %q's role %s: %s: %w", tenant, role, s, err)
		}
	}
	return role, nil
}

// citusTable is one table of the schema and what Citus makes of it now.
type citusTable struct {
	Name  string
	Keyed bool   // has a repository_id column
	Kind  string // citus_tables' type: distributed, reference, local; '' for a plain table
}

// distributeTables makes every table of the schema a reference or a
// distributed table, in one transaction. Foreign keys between distributed
// tables (memory_anchors -> memories) are dropped first and added back after:
// Citus refuses to distribute either side while the other is still local.
func distributeTables(ctx context.Context, conn *pgx.Conn, rep *DistributeReport) error {
	rows, err := conn.Query(ctx, `
		SELECT c.relname,
		       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'repository_id' AND NOT a.attisdropped),
		       coalesce((SELECT t.citus_table_type FROM citus_tables t WHERE t.table_name = c.oid::regclass), '')
		FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		ORDER BY c.relname`)
	if err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[citusTable])
	if err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	// Reference tables first (the distributed ones refer to repositories),
	// then the co-location anchor, then the rest.
	rank := func(t citusTable) int {
		switch {
		case !t.Keyed || slices.Contains(referenceTables, t.Name):
			return 0
		case t.Name == colocationAnchor:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(tables, func(a, b citusTable) int { return rank(a) - rank(b) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	// The memory tables' BEFORE UPDATE trigger (spelunk_touch_sync_at) only
	// stamps the row it is given, which is safe on a shard.
	if _, err := tx.Exec(ctx, `SET LOCAL citus.enable_unsafe_triggers = on`); err != nil {
		return fmt.Errorf("allow the memory tables' row trigger: %w", err)
	}
	fks, err := dropForeignKeysBetweenDistributed(ctx, tx, tables)
	if err != nil {
		return err
	}
	for _, t := range tables {
		var stmt string
		switch {
		case t.Kind == "distributed" || t.Kind == "reference":
			rep.Already++
			continue
		case !t.Keyed || slices.Contains(referenceTables, t.Name):
			stmt = `SELECT create_reference_table($1::regclass)`
			rep.Reference = append(rep.Reference, t.Name)
		case t.Name == colocationAnchor:
			stmt = `SELECT create_distributed_table($1::regclass, 'repository_id')`
			rep.Distributed = append(rep.Distributed, t.Name)
		default:
			stmt = `SELECT create_distributed_table($1::regclass, 'repository_id', colocate_with => '` + colocationAnchor + `')`
			rep.Distributed = append(rep.Distributed, t.Name)
		}
		if _, err := tx.Exec(ctx, stmt, pgx.Identifier{t.Name}.Sanitize()); err != nil {
			return fmt.Errorf("distribute %s: %w", t.Name, err)
		}
	}
	for _, fk := range fks {
		if _, err := tx.Exec(ctx, fk); err != nil {
			return fmt.Errorf("restore a foreign key: %s: %w", fk, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit the distribution: %w", err)
	}
	return nil
}

// dropForeignKeysBetweenDistributed drops the foreign keys whose both sides
// are to be distributed and not both distributed yet, and returns the
// statements that add them back.
func dropForeignKeysBetweenDistributed(ctx context.Context, tx pgx.Tx, tables []citusTable) ([]string, error) {
	pending := map[string]bool{} // to be distributed now
	for _, t := range tables {
		if t.Keyed && !slices.Contains(referenceTables, t.Name) && t.Kind != "distributed" {
			pending[t.Name] = true
		}
	}
	rows, err := tx.Query(ctx, `
		SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
		FROM pg_constraint c
		WHERE c.connamespace = 'public'::regnamespace AND c.contype = 'f'`)
	if err != nil {
		return nil, fmt.Errorf("list the foreign keys: %w", err)
	}
	type fkey struct{ From, To, Name, Def string }
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fkey])
	if err != nil {
		return nil, fmt.Errorf("list the foreign keys: %w", err)
	}
	var restore []string
	for _, fk := range all {
		if slices.Contains(referenceTables, fk.To) || !pending[fk.From] && !pending[fk.To] {
			continue
		}
		table, name := pgx.Identifier{fk.From}.Sanitize(), pgx.Identifier{fk.Name}.Sanitize()
		if _, err := tx.Exec(ctx, "ALTER TABLE "+table+" DROP CONSTRAINT "+name); err != nil {
			return nil, fmt.Errorf("drop foreign key %s of %s: %w", fk.Name, fk.From, err)
		}
		restore = append(restore, "ALTER TABLE "+table+" ADD CONSTRAINT "+name+" "+fk.Def)
	}
	return restore, nil
}

// markWorkersLeakproof repeats migration 0001's LEAKPROOF marks on every
// worker where the URL's user is superuser (elsewhere lexical search on the
// shards runs without those indexes, as on any server where spelunk is not
// superuser).
func markWorkersLeakproof(ctx context.Context, conn *pgx.Conn) error {
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
		return fmt.Errorf("read whether this user is superuser: %w", err)
	}
	if !super {
		return nil
	}
	for _, f := range leakproofFunctions {
		rows, err := conn.Query(ctx, `SELECT nodename, nodeport, success, result
			FROM run_command_on_workers($1)`, "ALTER FUNCTION "+f+" LEAKPROOF")
		if err != nil {
			return fmt.Errorf("mark %s leakproof on the workers: %w", f, err)
		}
		for rows.Next() {
			var host, result string
			var port int
			var ok bool
			if err := rows.Scan(&host, &port, &ok, &result); err != nil {
				return fmt.Errorf("mark %s leakproof on the workers: %w", f, err)
			}
			if !ok {
				rows.Close()
				return fmt.Errorf("mark %s leakproof on worker %s:%d: %s", f, host, port, result)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("mark %s leakproof on the workers: %w", f, err)
		}
	}
	return nil
}
