package pg

import "strings"

// splitStatements cuts a migration's SQL into its statements, each sent on its
// own. Citus propagates some DDL on a distributed table (ALTER TABLE ...
// RENAME, for one) by sending the client's query string to the workers as one
// prepared statement, which fails when that string holds a whole migration
// ("cannot insert multiple commands into a prepared statement").
//
// It reads PostgreSQL's lexical structure only as far as a semicolon's meaning
// needs: quoted strings ('...', E'...' with backslash escapes), quoted
// identifiers, dollar-quoted bodies ($$...$$, $tag$...$tag$), line comments and
// nested block comments. A statement of only comments and blanks is dropped.
func splitStatements(sql string) []string {
	var out []string
	start, i := 0, 0
	code := false // the current statement has more than comments and blanks
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ';':
			if code {
				out = append(out, strings.TrimSpace(sql[start:i+1]))
			}
			start, code = i+1, false
			i++
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			i = skipLineComment(sql, i)
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = skipBlockComment(sql, i)
			continue
		case c == '\'':
			i = skipQuoted(sql, i, i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && !identByte(sql, i-2))
		case c == '"':
			i = skipQuoted(sql, i, false)
		case c == '$':
			i = skipDollar(sql, i)
		default:
			i++
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			code = true
		}
	}
	if code {
		out = append(out, strings.TrimSpace(sql[start:]))
	}
	return out
}

// identByte reports whether sql[i] exists and can be part of an identifier
// (so that the E before a quote is a word's last letter, not an escape prefix).
func identByte(sql string, i int) bool {
	if i < 0 {
		return false
	}
	c := sql[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func skipLineComment(sql string, i int) int {
	if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(sql)
}

// skipBlockComment skips a /* */ comment; PostgreSQL's nest.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipQuoted skips the quoted literal or identifier starting at i, closed by
// the quote that opens it: two quotes in a row are a quote inside it, and with
// escapes (E'...') so is a backslash and a quote.
func skipQuoted(sql string, i int, escapes bool) int {
	q := sql[i]
	for i++; i < len(sql); i++ {
		switch {
		case escapes && sql[i] == '\\':
			i++
		case sql[i] == q:
			if i+1 < len(sql) && sql[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return i
}

// skipDollar skips a dollar-quoted body starting at i, or just the $ of a
// parameter ($1) or of an identifier's inside.
func skipDollar(sql string, i int) int {
	if identByte(sql, i-1) {
		return i + 1 // a $ inside an identifier (PostgreSQL allows it after the first letter)
	}
	j := i + 1
	for j < len(sql) && sql[j] != '$' {
		c := sql[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || j > i+1 && c >= '0' && c <= '9') {
			return i + 1 // $1, or a lone $
		}
		j++
	}
	if j >= len(sql) {
		return i + 1
	}
	tag := sql[i : j+1]
	if end := strings.Index(sql[j+1:], tag); end >= 0 {
		return j + 1 + end + len(tag)
	}
	return len(sql)
}
