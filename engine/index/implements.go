package index

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Go has no `implements` clause: a type satisfies an interface when its method set
// covers the interface's methods. linkGoImplementations approximates that without a
// type checker: an interface's methods are read from its source, with the methods of
// the interfaces it embeds (found by name in its package, or through its file's
// import of pkg for pkg.Iface); a type's methods are the methods declared with it as
// receiver in its package. A method matches when its parameter and result types, as
// written and normalised (names, spacing and package qualifiers dropped), are the
// interface's. An interface whose method set is not fully known (it embeds one from
// outside the repository, or is a type constraint) links nothing. To keep
// one-method interfaces such as `Close() error` from linking half the repository,
// they count only within their own package.

type goIface struct {
	id      int64
	name    string
	dir     string
	fileID  int64
	methods map[string]string // name -> normalised signature
	embeds  []string
	broken  bool // a constraint, or an embed that could not be followed
	// deps are the directories whose files decide the method set: its own and
	// those of every interface it embeds, followed or not ("*": a cycle).
	deps map[string]bool
}

type goType struct {
	id     int64
	fileID int64
	name   string
	dir    string
	line   int
}

// linkGoImplementations replaces the repository's Go `implements` edges.
func (w *writer) linkGoImplementations(ctx context.Context) error {
	ifaces, err := w.goInterfaces(ctx)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	methods, types, err := w.goMethodSets(ctx)
	if err != nil {
		return fmt.Errorf("go implementations: %w", err)
	}
	var edgeRows [][]any
	for _, t := range types {
		edgeRows = w.implementations(edgeRows, t, methods[t.dir+"\x00"+t.name], ifaces, nil)
	}
	var deleted int64
	err = pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		if err := relaxCommit(ctx, tx); err != nil {
			return err
		}
		if err := holdWork(ctx, tx, w.repoID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM edges e USING files f
			WHERE e.repository_id = $1 AND e.kind = 'implements' AND f.repository_id = e.repository_id
			  AND f.id = e.file_id AND f.language = 'go'`, w.repoID)
		if err != nil {
			return fmt.Errorf("go implementations: %w", err)
		}
		deleted = tag.RowsAffected()
		return copyRows(ctx, tx, w.db, "edges", edgeColumns, edgeRows)
	})
	if err == nil {
		w.addEdges(len(edgeRows) - int(deleted))
	}
	return err
}

// implementations appends the edges from type t (with methods have) to the
// interfaces of ifaces it implements, skipping those done already has (and
// recording them there, when done is set).
func (w *writer) implementations(rows [][]any, t goType, have map[string]string, ifaces []*goIface, done map[[2]int64]bool) [][]any {
	for _, in := range ifaces {
		if in.broken || len(in.methods) == 0 || len(in.methods) > len(have) ||
			(len(in.methods) == 1 && in.dir != t.dir) || !satisfies(have, in.methods) {
			continue
		}
		if done != nil {
			if done[[2]int64{t.id, in.id}] {
				continue
			}
			done[[2]int64{t.id, in.id}] = true
		}
		rows = append(rows, []any{w.repoID, t.fileID, t.id, "implements", in.id, in.name, "", nil,
			t.line, "", "inferred"})
	}
	return rows
}

func satisfies(have, want map[string]string) bool {
	for m, sig := range want {
		if got, ok := have[m]; !ok || got != sig {
			return false
		}
	}
	return true
}

// goInterfaces reads every Go interface's own methods, then adds those of the
// interfaces it embeds. (symbols.language is the file's: the condition lets
// the planner use migration 0013's index of Go interfaces.)
func (w *writer) goInterfaces(ctx context.Context) ([]*goIface, error) {
	rows, err := w.db.Pool.Query(ctx, `SELECT s.id, s.name, f.dir, s.file_id, s.content, coalesce(s.embeds, '{}') FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.kind = 'interface' AND s.language = 'go' AND f.language = 'go'
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID)
	if err != nil {
		return nil, err
	}
	var ifaces []*goIface
	var it goIface
	var content string
	var qualified []int64 // files of interfaces that embed pkg.Iface
	_, err = pgx.ForEachRow(rows, []any{&it.id, &it.name, &it.dir, &it.fileID, &content, &it.embeds}, func() error {
		in := it
		in.methods, in.broken = interfaceMethods(content)
		ifaces = append(ifaces, &in)
		for _, e := range in.embeds {
			if strings.Contains(e, ".") {
				qualified = append(qualified, in.fileID)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Bindings of those files' imports, for embeds written pkg.Iface.
	imports := map[int64]map[string]string{}
	rows, err = w.db.Pool.Query(ctx, `SELECT e.file_id, e.target_qualifier, e.target_path FROM edges e
		WHERE e.repository_id = $1 AND e.file_id = ANY ($2) AND e.kind = 'imports' AND e.target_path IS NOT NULL`,
		w.repoID, qualified)
	if err != nil {
		return nil, err
	}
	var fid int64
	var qual, path string
	_, err = pgx.ForEachRow(rows, []any{&fid, &qual, &path}, func() error {
		if imports[fid] == nil {
			imports[fid] = map[string]string{}
		}
		imports[fid][qual] = path
		return nil
	})
	if err != nil {
		return nil, err
	}
	byName := map[string]*goIface{} // dir + "\x00" + name
	for _, in := range ifaces {
		byName[in.dir+"\x00"+in.name] = in
	}
	for _, in := range ifaces {
		flattenEmbeds(in, byName, imports, 0)
	}
	return ifaces, nil
}

// flattenEmbeds merges the methods of the interfaces in embeds into in.
func flattenEmbeds(in *goIface, byName map[string]*goIface, imports map[int64]map[string]string, depth int) {
	if in.deps == nil {
		in.deps = map[string]bool{in.dir: true}
	}
	if depth > 8 {
		in.broken = true
		in.deps["*"] = true
		return
	}
	for _, e := range in.embeds {
		dir, name := in.dir, e
		if i := strings.LastIndexByte(e, '.'); i >= 0 {
			dir, name = imports[in.fileID][e[:i]], e[i+1:]
		}
		in.deps[dir] = true
		sub, ok := byName[dir+"\x00"+name]
		if !ok || dir == "" {
			in.broken = true // outside the repository (io.Reader): its methods are unknown
			continue
		}
		flattenEmbeds(sub, byName, imports, depth+1)
		if sub.broken {
			in.broken = true
		}
		for m, sig := range sub.methods {
			in.methods[m] = sig
		}
		for d := range sub.deps {
			in.deps[d] = true
		}
	}
	in.embeds = nil
}

// goMethodSets returns each receiver's methods (dir + "\x00" + type name -> method
// -> normalised signature) and the types that have methods.
func (w *writer) goMethodSets(ctx context.Context) (map[string]map[string]string, []goType, error) {
	methods := map[string]map[string]string{}
	rows, err := w.db.Pool.Query(ctx, `SELECT f.dir, regexp_replace(coalesce(s.receiver, ''), '^\*|\[.*$', '', 'g'), s.name, s.signature
		FROM symbols s JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND f.language = 'go' AND s.kind = 'method'
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID)
	if err != nil {
		return nil, nil, err
	}
	var dir, recv, name, sig string
	_, err = pgx.ForEachRow(rows, []any{&dir, &recv, &name, &sig}, func() error {
		addMethod(methods, dir, recv, name, sig)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rows, err = w.db.Pool.Query(ctx, `SELECT s.id, s.file_id, s.name, f.dir, s.start_line FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND f.language = 'go' AND s.kind IN ('struct', 'type')
		ORDER BY s.path, s.start_line, s.qualified_name`, w.repoID)
	if err != nil {
		return nil, nil, err
	}
	var types []goType
	var t goType
	_, err = pgx.ForEachRow(rows, []any{&t.id, &t.fileID, &t.name, &t.dir, &t.line}, func() error {
		types = append(types, t)
		return nil
	})
	return methods, withMethods(types, methods), err
}

// interfaceMethods reads the method specs of an interface declaration's source:
// name -> normalised signature. broken reports a type constraint (~T, A | B).
func interfaceMethods(content string) (map[string]string, bool) {
	out := map[string]string{}
	body := content
	if i := strings.Index(body, "interface"); i >= 0 {
		body = body[i+len("interface"):]
	}
	open := strings.IndexByte(body, '{')
	if open < 0 {
		return out, false
	}
	body = body[open+1:]
	if end := matching(body, 0, '{', '}'); end >= 0 {
		body = body[:end]
	}
	for _, spec := range splitTop(stripComments(body), "\n;") {
		spec = strings.TrimSpace(spec)
		if strings.ContainsAny(spec, "~|") {
			return out, true
		}
		m := goMethodSpec.FindStringSubmatch(spec)
		if m == nil {
			continue // an embedded interface: symbols.embeds has it
		}
		out[m[1]] = normaliseSignature(spec[len(m[0])-1:])
	}
	return out, false
}

// goMethodSpec matches the start of an interface method spec: `Name(`.
var goMethodSpec = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// goFuncDecl matches a method declaration up to its parameters: func (r *T) Name(.
var goFuncDecl = regexp.MustCompile(`^func\s*\([^)]*\)\s*[A-Za-z_][A-Za-z0-9_]*\s*\(`)

// methodSignature normalises a method declaration's signature (symbols.signature).
func methodSignature(sig string) string {
	m := goFuncDecl.FindString(sig)
	if m == "" {
		return sig
	}
	return normaliseSignature(strings.TrimSuffix(strings.TrimSpace(sig[len(m)-1:]), "{"))
}

// normaliseSignature turns "(a, b int, opts ...pkg.Opt) (n int, err error)" into
// "(int,int,...Opt)(int,error)": parameter and result types only.
func normaliseSignature(s string) string {
	s = strings.TrimSpace(s)
	end := matching(s, 1, '(', ')')
	if !strings.HasPrefix(s, "(") || end < 0 {
		return s
	}
	params, results := s[1:end], strings.TrimSpace(s[end+1:])
	if strings.HasPrefix(results, "(") {
		if e := matching(results, 1, '(', ')'); e > 0 {
			results = results[1:e]
		}
	}
	return "(" + strings.Join(typesOf(params), ",") + ")(" + strings.Join(typesOf(results), ",") + ")"
}

// typesOf lists the types of a parameter list, names dropped: in "a, b int" both
// are int; in "int, error" there are no names.
func typesOf(list string) []string {
	items := splitTop(list, ",")
	var out []string
	named := false
	for _, it := range items {
		if fields := strings.Fields(it); len(fields) > 1 && !strings.HasPrefix(fields[0], "func") &&
			!strings.HasPrefix(fields[0], "chan") && !strings.HasPrefix(fields[0], "<-") && !strings.HasPrefix(fields[0], "map[") {
			named = true
		}
	}
	pending := 0
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if !named {
			out = append(out, normaliseType(it))
			continue
		}
		f := strings.Fields(it)
		if len(f) == 1 {
			pending++ // a name whose type comes with the next item
			continue
		}
		t := normaliseType(strings.TrimSpace(it[len(f[0]):]))
		for ; pending > 0; pending-- {
			out = append(out, t)
		}
		out = append(out, t)
	}
	return out
}

// goQualifier matches a package qualifier (pkg. in pkg.Type).
var goQualifier = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.`)

// normaliseType drops package qualifiers and spacing that says nothing.
func normaliseType(t string) string {
	t = goQualifier.ReplaceAllString(strings.Join(strings.Fields(t), " "), "")
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] == ' ' && i > 0 && i+1 < len(t) && isIdent(t[i-1]) && isIdent(t[i+1]) {
			b.WriteByte(' ') // chan int, func() error
		} else if t[i] != ' ' {
			b.WriteByte(t[i])
		}
	}
	return b.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// matching returns the index of the bracket closing the one before from, or -1.
func matching(s string, from int, open, close byte) int {
	depth := 1
	for i := from; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits s at any of seps outside brackets.
func splitTop(s, seps string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && strings.IndexByte(seps, c) >= 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// stripComments removes // and /* */ comments (interface bodies carry docs).
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(s)
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
