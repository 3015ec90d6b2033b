package search

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Long inputs (an issue's text, a stack trace, a log) name code in ways a
// bag of words loses: a traceback frame points at a file, a line and a function;
// "lib/router.js:42" points at a definition. Those mentions are resolved to the
// definitions they point at and ranked in the symbol channel, above names.

// mention is a place in the code named by the query.
type mention struct {
	path string // as written: a full path, a suffix of one, or a bare file name
	line int    // 0 when only the file (and perhaps a function) is named
	name string // the function the frame names, "" when none
}

// maxMentions bounds how many places one query resolves.
const maxMentions = 12

var (
	// Python: File "/x/y/app/models.py", line 42, in save
	pyFrame = regexp.MustCompile(`File "([^"]+)", line (\d+)(?:, in ([A-Za-z_][\w.<>]*))?`)
	// JS/Node: at fn (/x/lib/router.js:42:7) | at /x/lib/router.js:42:7
	jsFrame = regexp.MustCompile(`\bat (?:(?:new |async )?([\w$.<>]+) )?\(?((?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?`)
	// Java: at com.acme.Billing.refund(Billing.java:42)
	javaFrame = regexp.MustCompile(`\bat ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala)):(\d+)\)`)
	// Go panics print "pkg.(*T).Method(...)" on one line and "\t/x/y/file.go:42 +0x1d"
	// on the next; any "path.ext:line" mention has the same shape.
	pathLine = regexp.MustCompile(`((?:[\w.-]+/)*[\w.-]+\.(?:go|py|js|mjs|cjs|jsx|ts|tsx|java|rb|rs|php|c|h|cc|cpp|hpp|cs|kt|swift|scala)):(\d+)`)
	goFunc   = regexp.MustCompile(`(?m)^\s*(?:[\w./-]+/)?[\w-]+\.(?:\(\*?(\w+)\)\.)?(\w+)\(`)
)

// extractMentions finds frames and path:line mentions, in order of appearance,
// deduplicated. Frames inside a language's own runtime or third-party packages
// are kept: they resolve to nothing in the repository and cost one lookup.
func extractMentions(q string) []mention {
	var out []mention
	seen := map[string]bool{}
	add := func(m mention) {
		m.path = strings.TrimPrefix(m.path, "./")
		key := m.path + ":" + strconv.Itoa(m.line) + ":" + m.name
		if m.path == "" || seen[key] || len(out) >= maxMentions {
			return
		}
		seen[key] = true
		out = append(out, m)
	}
	for _, g := range pyFrame.FindAllStringSubmatch(q, -1) {
		n, _ := strconv.Atoi(g[2])
		add(mention{path: g[1], line: n, name: g[3]})
	}
	for _, g := range javaFrame.FindAllStringSubmatch(q, -1) {
		n, _ := strconv.Atoi(g[4])
		pkg := strings.ReplaceAll(g[1], ".", "/")
		dir := pkg[:max(strings.LastIndexByte(pkg, '/'), 0)]
		add(mention{path: strings.TrimPrefix(dir+"/"+g[3], "/"), line: n, name: g[2]})
	}
	for _, g := range jsFrame.FindAllStringSubmatch(q, -1) {
		n, _ := strconv.Atoi(g[3])
		name := g[1]
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		add(mention{path: g[2], line: n, name: name})
	}
	for _, g := range pathLine.FindAllStringSubmatch(q, -1) {
		n, _ := strconv.Atoi(g[2])
		add(mention{path: g[1], line: n})
	}
	return out
}

// goPanicNames returns the function names of a Go panic's frames
// ("main.(*Server).handle(...)" gives handle), which the symbol channel looks up
// like any identifier.
func goPanicNames(q string) []string {
	if !strings.Contains(q, "goroutine ") && !strings.Contains(q, "panic:") {
		return nil
	}
	var out []string
	for _, g := range goFunc.FindAllStringSubmatch(q, -1) {
		name := g[2]
		if g[1] != "" {
			name = g[1] + "." + g[2]
		}
		out = append(out, name)
	}
	return out
}

// mentionSQL resolves one mention in the file $2. A frame's function name $4
// decides: the definition of that name, the one covering line $3 first, else
// the nearest to it (a traceback from another version of the file has moved
// lines, not renamed functions). The line alone decides only when the file has
// no definition of that name (or no name was given): the innermost definition
// covering it. With neither, the file's header.
const mentionSQL = `
	SELECT s.id, CASE WHEN $3 > 0 AND s.name = $4 AND s.start_line <= $3 AND s.end_line >= $3 THEN 1.0
	                  WHEN $3 > 0 AND s.name = $4 THEN 0.98
	                  WHEN $3 > 0 THEN 0.97 ELSE 0.93 END
	FROM symbols s
	WHERE s.repository_id = $1 AND s.path = $2 AND s.kind NOT IN ('part', 'field')
	  AND (($4 <> '' AND s.name = $4 AND s.kind <> 'module')
	    OR ($3 > 0 AND s.start_line <= $3 AND s.end_line >= $3 AND s.kind <> 'module'
	        AND NOT EXISTS (SELECT 1 FROM symbols n WHERE n.repository_id = $1 AND n.path = $2 AND n.name = $4
	                        AND n.kind NOT IN ('part', 'field', 'module')))
	    OR ($3 = 0 AND $4 = '' AND s.kind = 'module'))
	ORDER BY (s.name = $4) DESC, (s.start_line <= $3 AND s.end_line >= $3) DESC,
	         CASE WHEN s.name = $4 THEN abs(s.start_line - $3) ELSE s.end_line - s.start_line END, s.id
	LIMIT 1`

// mentionHits resolves the query's mentions to definitions, scored 1.0 for a
// frame whose line lies in the function it names, 0.98 for the function it
// names elsewhere in the file, 0.97 for a line alone and 0.93 for a file or
// function without a line. A mentioned path is matched to the
// repository's file sharing the longest run of trailing path components with it,
// so absolute paths from another machine or an installed copy still resolve.
func (s *Searcher) mentionHits(ctx context.Context, ms []mention) ([]hit, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	var patterns []string
	for _, m := range ms {
		patterns = append(patterns, "%"+likeEscape(lastComponent(m.path)))
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT path FROM files
		WHERE repository_id = $1 AND path LIKE ANY ($2)`, s.repoID, patterns)
	if err != nil {
		return nil, fmt.Errorf("resolve mentions: %w", err)
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("resolve mentions: %w", err)
	}
	batch := &pgx.Batch{}
	for _, m := range ms {
		if p := bestPathMatch(m.path, paths); p != "" {
			batch.Queue(mentionSQL, s.repoID, p, m.line, m.name)
		}
	}
	if batch.Len() == 0 {
		return nil, nil
	}
	br := s.db.Pool.SendBatch(ctx, batch)
	defer br.Close()
	var hits []hit
	seen := map[int64]bool{}
	for range batch.Len() {
		rows, err := br.Query()
		if err != nil {
			return nil, fmt.Errorf("resolve mentions: %w", err)
		}
		hs, err := collectHits(rows)
		if err != nil {
			return nil, fmt.Errorf("resolve mentions: %w", err)
		}
		for _, h := range hs {
			if !seen[h.id] {
				seen[h.id] = true
				hits = append(hits, h)
			}
		}
	}
	return hits, br.Close()
}

// bestPathMatch picks the path sharing the most trailing components with the
// mentioned one; "" when none shares the file name, or when several tie on the
// best match (a bare "utils.py" in a repository with five of them).
func bestPathMatch(mentioned string, paths []string) string {
	want := strings.Split(strings.Trim(strings.ReplaceAll(mentioned, "\\", "/"), "/"), "/")
	best, bestN, ties := "", 0, 0
	for _, p := range paths {
		have := strings.Split(p, "/")
		n := 0
		for n < len(want) && n < len(have) && want[len(want)-1-n] == have[len(have)-1-n] {
			n++
		}
		switch {
		case n > bestN:
			best, bestN, ties = p, n, 1
		case n == bestN && n > 0:
			ties++
		}
	}
	if bestN == 0 || ties > 1 {
		return ""
	}
	return best
}

func lastComponent(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// likeEscape quotes LIKE's wildcards.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// mergeHits puts first before rest, each hit once (at its first place).
func mergeHits(first, rest []hit) []hit {
	seen := make(map[int64]bool, len(first))
	out := append([]hit(nil), first...)
	for _, h := range first {
		seen[h.id] = true
	}
	for _, h := range rest {
		if !seen[h.id] {
			out = append(out, h)
		}
	}
	return out[:min(len(out), channelDepth)]
}
