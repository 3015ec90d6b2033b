package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// openState is what Open needs to know of a database before it opens the pool,
// read in one round trip so that a CLI process whose schema is current pays one
// query on its owner connection and none on each pool connection (it paid six,
// and three on each pool connection: the type lookup, SET ROLE and the tenant).
type openState struct {
	applied int  // schema version; 0 when the migrations table does not exist
	appRole bool // AppRole exists and the URL's user may act as it
	// tenantRole is TenantRole(tenant) when it exists and the session's user
	// may act as it (a database spelunk distributed over Citus), else empty.
	tenantRole    string
	vectorVersion string
	// Type OIDs of vector, _vector, halfvec, _halfvec, sparsevec and _sparsevec;
	// nil for a type the installed pgvector does not have.
	oids [6]*uint32
}

const openStateSQL = `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND pg_has_role(current_user, $1, 'MEMBER'),
	coalesce((SELECT rolname FROM pg_roles WHERE rolname = $2 AND pg_has_role(session_user, oid, 'MEMBER')), ''),
	coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
	to_regtype('vector')::oid, to_regtype('_vector')::oid, to_regtype('halfvec')::oid,
	to_regtype('_halfvec')::oid, to_regtype('sparsevec')::oid, to_regtype('_sparsevec')::oid`

// readOpenState reads the state in one batch: the schema version is a second
// statement of it. Before the first migration the batch fails as a whole (it is
// prepared before it runs) and the state is the zero one, schema version 0:
// Open then migrates and reads it again.
func readOpenState(ctx context.Context, conn *pgx.Conn, tenant string) (openState, error) {
	var st openState
	b := &pgx.Batch{}
	b.Queue(openStateSQL, AppRole, TenantRole(tenant))
	b.Queue(`SELECT coalesce(max(version), 0) FROM spelunk_schema_migrations`)
	res := conn.SendBatch(ctx, b)
	o := &st.oids
	err := res.QueryRow().Scan(&st.appRole, &st.tenantRole, &st.vectorVersion, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])
	if err == nil {
		err = res.QueryRow().Scan(&st.applied)
	}
	if closeErr := res.Close(); err == nil {
		err = closeErr
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table: a new database
		return openState{}, nil
	}
	if err != nil {
		return openState{}, fmt.Errorf("read the schema version, role %s and pgvector's types: %w", AppRole, err)
	}
	return st, nil
}

// registerVectorTypes teaches a connection pgvector's types from the OIDs read
// once, as pgvector-go's RegisterTypes does with a query per connection. A
// database not migrated yet has none (Open then migrates and opens again).
func (st *openState) registerVectorTypes(tm *pgtype.Map) {
	codecs := []pgtype.Codec{&pgxvec.VectorCodec{}, &pgxvec.HalfVectorCodec{}, &pgxvec.SparseVectorCodec{}}
	for i, name := range []string{"vector", "halfvec", "sparsevec"} {
		oid, arrayOid := st.oids[2*i], st.oids[2*i+1]
		if oid == nil {
			continue
		}
		t := &pgtype.Type{Name: name, OID: *oid, Codec: codecs[i]}
		tm.RegisterType(t)
		if arrayOid != nil {
			var codec pgtype.Codec = &pgtype.ArrayCodec{ElementType: t}
			if name == "vector" {
				codec = vectorArrayCodec{&pgtype.ArrayCodec{ElementType: t}} // Vectors in one pass
			}
			tm.RegisterType(&pgtype.Type{Name: "_" + name, OID: *arrayOid, Codec: codec})
		}
	}
	// A []pgvector.Vector or Vectors argument is a vector[]: with
	// QueryExecModeExec pgx picks a parameter's type from its Go type (and
	// sends it as text), and knows none for these slices. A statement
	// described first (prepared, or QueryExecModeDescribeExec) takes them in
	// binary.
	if st.oids[1] != nil {
		tm.RegisterDefaultPgType([]pgvector.Vector(nil), "_vector")
		tm.RegisterDefaultPgType(Vectors(nil), "_vector")
	}
}
