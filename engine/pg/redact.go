package pg

import (
	"net/url"
	"strings"
)

// mask replaces a password wherever one is printed.
const mask = "xxxxx"

// RedactURL returns a connection string, a URL or a keyword/value string, with every
// password masked: the password in the URL's user info, password= and sslpassword=
// query parameters, and password settings of a keyword/value string. Everything else
// is left byte for byte as it was, so the result still says where spelunk connects.
// It works on strings that do not parse, since those are the ones errors print.
func RedactURL(s string) string {
	if hasURLScheme(s) {
		return redactURI(s)
	}
	return redactSettings(s)
}

// RedactText masks passwords in free text such as an error message: each
// postgres:// URL in it (up to the next white space) and every password=value.
func RedactText(s string) string {
	var b strings.Builder
	for {
		i := indexURL(s)
		if i < 0 {
			b.WriteString(redactSettings(s))
			return b.String()
		}
		b.WriteString(redactSettings(s[:i]))
		end := strings.IndexAny(s[i:], " \t\r\n")
		if end < 0 {
			end = len(s) - i
		}
		b.WriteString(redactURI(s[i : i+end]))
		s = s[i+end:]
	}
}

// redactedError masks passwords in an error's text and keeps the chain for errors.As.
type redactedError struct{ err error }

func (e *redactedError) Error() string { return RedactText(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }

func redacted(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{err}
}

var schemes = []string{"postgresql://", "postgres://"}

func hasURLScheme(s string) bool {
	for _, p := range schemes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// indexURL finds the first postgres:// or postgresql:// in s, in any case.
func indexURL(s string) int {
	lower := asciiLower(s)
	first := -1
	for _, p := range schemes {
		if i := strings.Index(lower, p); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// redactURI masks the user info password and the password query values of a URL.
func redactURI(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	var b strings.Builder
	b.WriteString(scheme + "://")

	// The user info ends at the last '@' of the authority. An unencoded '/', '?' or
	// '#' in a password ends the authority early and strands the '@' further on:
	// the URL then does not parse, and the last '@' of all is taken (masking too
	// much of a broken URL rather than a part of its password).
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	at := strings.LastIndex(rest[:authEnd], "@")
	if at < 0 && strings.Contains(rest[:authEnd], ":") {
		if _, err := url.Parse(s); err != nil {
			at = strings.LastIndex(rest, "@")
		}
	}
	if at >= 0 {
		user, _, hasPassword := strings.Cut(rest[:at], ":")
		b.WriteString(user)
		if hasPassword {
			b.WriteString(":" + mask)
		}
		b.WriteByte('@')
		rest = rest[at+1:]
	}

	q := strings.IndexByte(rest, '?')
	if q < 0 {
		b.WriteString(rest)
		return b.String()
	}
	b.WriteString(rest[:q+1])
	query, fragment, hasFragment := strings.Cut(rest[q+1:], "#")
	params := strings.Split(query, "&")
	for i, p := range params {
		key, _, hasValue := strings.Cut(p, "=")
		if hasValue && isPasswordKey(key) {
			params[i] = key + "=" + mask
		}
	}
	b.WriteString(strings.Join(params, "&"))
	if hasFragment {
		b.WriteString("#" + fragment)
	}
	return b.String()
}

// isPasswordKey reports whether a (possibly percent-encoded) query key names a
// password: pass%77ord is password too.
func isPasswordKey(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(strings.TrimSpace(key))
	return key == "password" || key == "sslpassword"
}

// redactSettings masks the value of every key ending in "password" followed by '='
// (libpq's keyword/value syntax: white space around '=' allowed, a value quoted in
// single quotes with backslash escapes, or else running to the next white space).
func redactSettings(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	for {
		k := strings.Index(lower, "password")
		if k < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := skipSpaces(s, k+len("password"))
		if j >= len(s) || s[j] != '=' {
			b.WriteString(s[:k+len("password")])
			s, lower = s[k+len("password"):], lower[k+len("password"):]
			continue
		}
		v := skipSpaces(s, j+1)
		end := valueEnd(s, v)
		b.WriteString(s[:v])
		if v < len(s) && s[v] == '\'' {
			b.WriteString("'" + mask + "'")
		} else if end > v {
			b.WriteString(mask)
		}
		s, lower = s[end:], lower[end:]
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns where the keyword/value value starting at i ends.
func valueEnd(s string, i int) int {
	if i < len(s) && s[i] == '\'' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\'':
				return j + 1
			}
		}
		return len(s)
	}
	for j := i; j < len(s); j++ {
		if s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' {
			return j
		}
	}
	return len(s)
}
