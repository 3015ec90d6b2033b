package pg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Model is a registered embedding model.
type Model struct {
	Name string
	Dims int
}

// RegisterModel records an embedding model and creates its partial expression HNSW
// indexes (one on symbol_embeddings, one on memory_embeddings), e.g.
//
//	CREATE INDEX ... USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops) WHERE model_id = 3
//
// Queries must cast and filter the same way to use them (SymbolVectorExpr,
// VectorExpr, ModelID). DDL needs the
// table owner, so this opens an owner connection. Registering a model twice is a no-op;
// the same name with other dims is an error.
func (db *DB) RegisterModel(ctx context.Context, m Model) error {
	if m.Dims <= 0 || m.Dims > 16000 {
		return fmt.Errorf("embedding model %s: dims %d out of range", m.Name, m.Dims)
	}
	var dims int
	var id int16
	err := db.Pool.QueryRow(ctx, `SELECT dims, id FROM embedding_models WHERE name = $1`, m.Name).Scan(&dims, &id)
	switch {
	case err == nil && dims == m.Dims:
		db.modelIDs.Store(m.Name, id)
		// Registered; its index may have been dropped for a bulk load that did not
		// finish (see DeferModelIndex).
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE indexname = $1`,
			"symbol_embeddings_"+ModelIndexName(m.Name)).Scan(&n); err != nil || n > 0 {
			return err
		}
		return db.BuildModelIndex(ctx, m)
	case err == nil:
		return fmt.Errorf("embedding model %s is registered with %d dims, the embedder reports %d: use another model name", m.Name, dims, m.Dims)
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("look up embedding model %s: %w", m.Name, err)
	}

	conn, err := ConnectOwner(ctx, db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if id, err = insertModel(ctx, tx, m); err != nil {
			return err
		}
		for _, table := range []string{"symbol_embeddings", "memory_embeddings"} {
			if _, err := tx.Exec(ctx, hnswDDL(table, m, id)); err != nil {
				return fmt.Errorf("create HNSW index for model %s on %s: %w", m.Name, table, err)
			}
		}
		return nil
	})
	if err == nil {
		db.modelIDs.Store(m.Name, id)
	}
	return err
}

// insertModel adds the model to embedding_models with the next free id, unless
// a concurrent registration did first, and returns its id. The lock serialises
// every registration: two models must not take the same id.
func insertModel(ctx context.Context, tx pgx.Tx, m Model) (int16, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('spelunk embedding_models'))`); err != nil {
		return 0, fmt.Errorf("register embedding model %s: %w", m.Name, err)
	}
	var id int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(id), 0) + 1 FROM embedding_models`).Scan(&id); err != nil {
		return 0, fmt.Errorf("register embedding model %s: %w", m.Name, err)
	}
	if id > math.MaxInt16 {
		return 0, fmt.Errorf("register embedding model %s: %d models are the most a database holds", m.Name, math.MaxInt16)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO embedding_models (name, dims, index_name, id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (name) DO NOTHING`, m.Name, m.Dims, ModelIndexName(m.Name), int16(id)); err != nil {
		return 0, fmt.Errorf("register embedding model %s: %w", m.Name, err)
	}
	var got int16
	if err := tx.QueryRow(ctx, `SELECT id FROM embedding_models WHERE name = $1`, m.Name).Scan(&got); err != nil {
		return 0, fmt.Errorf("register embedding model %s: %w", m.Name, err)
	}
	return got, nil
}

// ErrUnknownModel is ModelID's error for a model never registered: no vector
// of it is stored.
var ErrUnknownModel = errors.New("embedding model not registered")

// ModelID is the registered model's id, the key of its vectors in
// symbol_embeddings (model_id, migration 0023): read once per DB, as a model
// keeps its id.
func (db *DB) ModelID(ctx context.Context, name string) (int16, error) {
	if id, ok := db.modelIDs.Load(name); ok {
		return id.(int16), nil
	}
	var id int16
	err := db.Pool.QueryRow(ctx, `SELECT id FROM embedding_models WHERE name = $1`, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("embedding model %s: %w", name, ErrUnknownModel)
	} else if err != nil {
		return 0, fmt.Errorf("look up embedding model %s: %w", name, err)
	}
	db.modelIDs.Store(name, id)
	return id, nil
}

// hnswDDL is the model's HNSW index on table, the model named by its id in
// symbol_embeddings and by its name in memory_embeddings. The memory index
// covers the indexed rows only: a pushed run's vectors wait beside it
// (migration 0016, engine/memory delta.go).
func hnswDDL(table string, m Model, id int16) string {
	// Rows of a repository with an index of its own are left out (migration 0024).
	pred := "model_id = " + strconv.Itoa(int(id)) + " AND own_index IS NULL"
	if table == "memory_embeddings" {
		pred = "model = " + QuoteLiteral(m.Name) + " AND indexed"
	}
	return fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s USING hnsw (%s)%s WHERE %s`,
		pgx.Identifier{table + "_" + ModelIndexName(m.Name)}.Sanitize(), table, hnswKey(table, m.Dims), hnswWith(table), pred)
}

// hnswWith is the graph's build parameters for table's HNSW indexes. Symbol
// vectors take m 12 and ef_construction 48 instead of pgvector's 16 and 64:
// at $GOROOT/src (101k vectors; docs/BENCHMARKS.md, "The HNSW graph's
// parameters") the build took 9.4 s instead of 14.8, the graph 80 MB instead
// of 87, and recall@10 against exact search at the dense channel's ef_search
// (100) went from 0.992 to 0.988. Memory vectors, fewer, keep the defaults.
func hnswWith(table string) string {
	if table == "symbol_embeddings" {
		return " WITH (m = 12, ef_construction = 48)"
	}
	return ""
}

// hnswKey is the key of a table's HNSW indexes: its cast vector and operator class.
// Symbol vectors are stored as halfvec (migration 0015: half the bytes of the
// table and of its HNSW graphs, and no change of rank beyond float16 rounding of
// unit vectors); memory vectors stay vector.
func hnswKey(table string, dims int) string {
	if table == "symbol_embeddings" {
		return SymbolVectorExpr("embedding", dims) + " halfvec_cosine_ops"
	}
	return VectorExpr("embedding", dims) + " vector_cosine_ops"
}

// DeferModelIndex drops the model's HNSW index on symbol_embeddings before a bulk
// load, while the table holds no vector of this model at all, from any
// repository (this one included: a full rebuild keeps serving its old vectors
// through the index), and under deferIndexes' other conditions. Inserting row by
// row into an HNSW graph costs ~0.5 ms a vector; building it afterwards is
// several times faster. It reports whether the index was dropped;
// BuildModelIndex (or the next RegisterModel, after a crash) recreates it.
func (db *DB) DeferModelIndex(ctx context.Context, m Model) (bool, error) {
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return false, err
	}
	dropped, err := db.deferIndexes(ctx, "symbol_embeddings", `SELECT 1 FROM symbol_embeddings WHERE model_id = $1`, []any{id},
		"DROP INDEX IF EXISTS "+pgx.Identifier{"symbol_embeddings_" + ModelIndexName(m.Name)}.Sanitize())
	if err != nil {
		return false, fmt.Errorf("defer HNSW index of %s: %w", m.Name, err)
	}
	return dropped, nil
}

// BuildModelIndex (re)creates the model's HNSW indexes, with room to build in
// memory, under the build lock: two first loads of one database at once both
// deferred the index, and their two CREATE INDEX IF NOT EXISTS racing in the
// catalog failed one of them (a duplicate key in pg_class).
func (db *DB) BuildModelIndex(ctx context.Context, m Model) error {
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return err
	}
	return db.withBuildConn(ctx, "spelunk vector indexes", func(conn *pgx.Conn) error {
		for _, table := range []string{"symbol_embeddings", "memory_embeddings"} {
			if _, err := conn.Exec(ctx, hnswDDL(table, m, id)); err != nil {
				return fmt.Errorf("build HNSW index of %s on %s: %w", m.Name, table, err)
			}
		}
		return nil
	})
}

// ModelIndexName is a short, stable identifier for a model's indexes.
func ModelIndexName(model string) string {
	sum := sha256.Sum256([]byte(model))
	return "hnsw_" + hex.EncodeToString(sum[:6])
}

// VectorExpr is the expression a query of memory_embeddings must use for the
// model's partial HNSW index to apply: the same cast as the index definition.
func VectorExpr(column string, dims int) string {
	return fmt.Sprintf("(%s::vector(%d))", column, dims)
}

// SymbolVectorExpr is VectorExpr for symbol_embeddings, whose vectors are
// halfvec (its query vector is a pgvector.HalfVector).
func SymbolVectorExpr(column string, dims int) string {
	return fmt.Sprintf("(%s::halfvec(%d))", column, dims)
}

// QuoteLiteral quotes s as an SQL string literal (standard_conforming_strings,
// PostgreSQL's default). A model name (memory_embeddings) or id
// (symbol_embeddings) goes into SQL text, not a parameter, so that the planner
// matches the model's partial HNSW index (model = '<name>', model_id = <id>)
// under any plan cache mode.
func QuoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}
