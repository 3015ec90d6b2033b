package redact

// Quoting of keys and values, including one level of escaped quotes: a JSON
// document inside a JSON or JS string ("{\"client_secret\": \"...\"}"), a value
// quoted again inside a YAML or .env string (api_key: "\"...\"").

// closeKey returns the position after the quote closing a quoted key that ends
// at src[j]: "key", 'key', or \"key\" nested in another string. Otherwise j.
func closeKey(src []byte, ks, j int) int {
	if ks == 0 || j >= len(src) || src[ks-1] != '"' && src[ks-1] != '\'' {
		return j
	}
	q := src[ks-1]
	switch {
	case src[j] == q:
		return j + 1 // JSON, Python dicts
	case ks > 1 && src[ks-2] == '\\' && escapedQuoteAt(src, j, q):
		return j + 2
	}
	return j
}

// escapedQuoteAt reports whether src[p:] starts with a backslash and quote q.
func escapedQuoteAt(src []byte, p int, q byte) bool {
	return p+1 < len(src) && src[p] == '\\' && src[p+1] == q
}

// value finds the value assigned to the key starting at src[ks], the value
// starting at src[p]: a quoted string (its content), an escaped-quoted one
// (\"...\" or \'...\'), or a bare literal (see bareLiteral). A quoted value
// wrapped whole in one more pair of quotes ("'...'", "\"...\"") is narrowed to
// what they hold, so the secret alone is judged and replaced.
func value(src []byte, ks, p int) (vs, ve int, quoted, ok bool) {
	n := len(src)
	switch {
	case escapedQuoteAt(src, p, '"') || escapedQuoteAt(src, p, '\''):
		q := src[p+1]
		vs = p + 2
		ve = vs
		for ve < n && src[ve] != '\n' && !escapedQuoteAt(src, ve, q) {
			ve++
		}
		if !escapedQuoteAt(src, ve, q) {
			return 0, 0, false, false
		}
		return vs, ve, true, true
	case isQuote(src[p]):
		q := src[p]
		vs = p + 1
		ve = vs
		for ve < n && src[ve] != q && src[ve] != '\n' {
			if src[ve] == '\\' && q != '`' {
				ve++
			}
			ve++
		}
		if ve >= n || src[ve] != q {
			return 0, 0, false, false
		}
		vs, ve = unwrapQuotes(src, vs, ve)
		return vs, ve, true, true
	}
	vs, ve = p, p
	for ve < n && class[src[ve]]&cBareStop == 0 {
		ve++
	}
	return vs, ve, false, bareLiteral(src, ks, ve)
}

// unwrapQuotes narrows the quoted content src[vs:ve] to what one more pair of
// quotes around all of it holds: 'x', "x" or \"x\" (\'x\').
func unwrapQuotes(src []byte, vs, ve int) (int, int) {
	v := src[vs:ve]
	switch k := len(v); {
	case k >= 4 && v[0] == '\\' && (v[1] == '"' || v[1] == '\'') && v[k-2] == '\\' && v[k-1] == v[1]:
		return vs + 2, ve - 2
	case k >= 2 && (v[0] == '"' || v[0] == '\'') && v[k-1] == v[0]:
		return vs + 1, ve - 1
	}
	return vs, ve
}

// escapedClose reports whether the literal opened by the quote at src[i] is one
// nested in another string (\"...) closed at src[j] the same way (...\").
func escapedClose(src []byte, i, j int) bool {
	return i > 0 && src[i-1] == '\\' && escapedQuoteAt(src, j, src[i])
}
