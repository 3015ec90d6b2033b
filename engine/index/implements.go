package index

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Go has no `implements` clause: a type satisfies an interface when its method set
// covers the interface's methods. linkGoImplementations approximates that the cheap
// way, by method names: an interface's methods are read from its source (embedded
// interfaces are not followed), a type's methods are the methods declared with it as
// receiver in its package. To keep one-method interfaces such as `Close() error`
// from linking half the repository, they count only within their own package.

// goInterfaceMethod matches a method line inside an interface body: `Name(`.
var goInterfaceMethod = regexp.MustCompile(`(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

type goIface struct {
	id      int64
	name    string
	dir     string
	methods []string
}

type goType struct {
	id     int64
	fileID int64
	name   string
	dir    string
	path   string
	line   int
}

// linkGoImplementations replaces the repository's Go `implements` edges.
func (w *writer) linkGoImplementations(ctx context.Context) error {
	rows, err := w.db.Pool.Query(ctx, `SELECT s.id, s.name, f.dir, s.content FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND f.language = 'go' AND s.kind = 'interface'`, w.repoID)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	var ifaces []goIface
	var it goIface
	var content string
	_, err = pgx.ForEachRow(rows, []any{&it.id, &it.name, &it.dir, &content}, func() error {
		body := content
		if i := strings.Index(body, "interface"); i >= 0 {
			body = body[i:]
		}
		seen := map[string]bool{}
		var ms []string
		for _, m := range goInterfaceMethod.FindAllStringSubmatch(body, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				ms = append(ms, m[1])
			}
		}
		if len(ms) > 0 {
			ifaces = append(ifaces, goIface{id: it.id, name: it.name, dir: it.dir, methods: ms})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}

	methods := map[string]map[string]bool{} // dir + "\x00" + receiver -> method names
	rows, err = w.db.Pool.Query(ctx, `SELECT f.dir, trim(leading '*' from coalesce(s.receiver, '')), s.name FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND f.language = 'go' AND s.kind = 'method'`, w.repoID)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	var dir, recv, name string
	_, err = pgx.ForEachRow(rows, []any{&dir, &recv, &name}, func() error {
		k := dir + "\x00" + recv
		if methods[k] == nil {
			methods[k] = map[string]bool{}
		}
		methods[k][name] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}

	rows, err = w.db.Pool.Query(ctx, `SELECT s.id, s.file_id, s.name, f.dir, s.path, s.start_line FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND f.language = 'go' AND s.kind IN ('struct', 'type')`, w.repoID)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	var types []goType
	var t goType
	_, err = pgx.ForEachRow(rows, []any{&t.id, &t.fileID, &t.name, &t.dir, &t.path, &t.line}, func() error {
		if len(methods[t.dir+"\x00"+t.name]) > 0 {
			types = append(types, t)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}

	var edgeRows [][]any
	for _, t := range types {
		have := methods[t.dir+"\x00"+t.name]
		for _, in := range ifaces {
			if len(in.methods) > len(have) || (len(in.methods) == 1 && in.dir != t.dir) {
				continue
			}
			all := true
			for _, m := range in.methods {
				if !have[m] {
					all = false
					break
				}
			}
			if all {
				edgeRows = append(edgeRows, []any{w.repoID, t.fileID, t.id, "implements", in.id, in.name, "", nil, t.path, t.line, "", "inferred"})
			}
		}
	}
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM edges e USING files f
			WHERE e.repository_id = $1 AND e.kind = 'implements' AND f.repository_id = e.repository_id
			  AND f.id = e.file_id AND f.language = 'go'`, w.repoID); err != nil {
			return fmt.Errorf("go implementations: %w", err)
		}
		return copyRows(ctx, tx, "edges", edgeColumns, edgeRows)
	})
}
