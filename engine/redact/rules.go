package redact

import (
	"bytes"
	"math"
)

// keySuffix is the cheap first test of a name: does it end, in any case,
// with a word that names a credential? It rejects almost every identifier
// before the name is split into parts.
func keySuffix(w []byte, kebab bool) bool {
	if len(w) < 3 {
		return false
	}
	switch w[len(w)-1] | 0x20 {
	case 'd':
		return hasSuffixFold(w, "password") || hasSuffixFold(w, "passwd") || hasSuffixFold(w, "pwd")
	case 's':
		return hasSuffixFold(w, "pass") || hasSuffixFold(w, "credentials")
	case 'e':
		return hasSuffixFold(w, "passphrase")
	case 't':
		return hasSuffixFold(w, "secret")
	case 'n':
		return hasSuffixFold(w, "token")
	case 'l':
		return hasSuffixFold(w, "credential")
	case 'y':
		// "key" needs a qualifier (api_key, secretKey, api-key): a bare
		// "key" is everywhere in code.
		return hasSuffixFold(w, "key") && (len(w) > 3 || kebab)
	}
	return false
}

func hasSuffixFold(w []byte, suffix string) bool {
	if len(w) < len(suffix) {
		return false
	}
	w = w[len(w)-len(suffix):]
	for k := 0; k < len(suffix); k++ {
		if w[k]|0x20 != suffix[k] {
			return false
		}
	}
	return true
}

var passwordParts = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pass": true, "passphrase": true,
}

var credentialParts = map[string]bool{
	"secret": true, "token": true, "credential": true, "credentials": true,
	"apikey": true, "secretkey": true, "accesskey": true, "privatekey": true, "authkey": true,
}

// keyQualifiers make a name ending in "key" a credential: api_key,
// secret_key, access_key, private_key, ...
var keyQualifiers = map[string]bool{
	"api": true, "secret": true, "access": true, "private": true, "auth": true,
	"signing": true, "encryption": true, "master": true, "client": true, "app": true,
	"license": true, "hmac": true, "session": true,
}

// tokenQualifiers make a name ending in "token" not a secret: pagination
// and cancellation tokens, lexer tokens.
var tokenQualifiers = map[string]bool{
	"next": true, "page": true, "continuation": true, "cancellation": true, "cancel": true,
	"sync": true, "resume": true, "start": true, "end": true, "eof": true, "first": true,
	"last": true, "prev": true, "previous": true, "current": true, "cur": true, "lex": true,
	"parse": true, "csrf": true, "xsrf": true,
}

// splitName returns the lowercased parts of an identifier split on '_',
// '-' and camelCase boundaries ("dbPassword" -> db password,
// "AWS_SECRET_ACCESS_KEY" -> aws secret access key, "APIKey" -> api key).
func splitName(w []byte, buf []string) []string {
	parts := buf[:0]
	start := 0
	isUp := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLo := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(bytes.ToLower(w[start:end])))
		}
	}
	for k := 0; k < len(w); k++ {
		c := w[k]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(k)
			start = k + 1
		case k > start && isUp(c) && isLo(w[k-1]):
			flush(k)
			start = k
		case k > start+1 && isUp(w[k-1]) && isLo(c) && isUp(w[k-2]) && c >= 'a':
			flush(k - 1)
			start = k - 1
		}
	}
	flush(len(w))
	return parts
}

// keyKind says whether an identifier names a credential, and which kind.
func keyKind(name []byte) string {
	var buf [8]string
	parts := splitName(name, buf[:])
	if len(parts) == 0 || len(parts) > 8 {
		return ""
	}
	last := parts[len(parts)-1]
	prev := ""
	if len(parts) > 1 {
		prev = parts[len(parts)-2]
	}
	switch {
	case passwordParts[last]:
		return KindPassword
	case last == "token" && tokenQualifiers[prev]:
		return ""
	case credentialParts[last]:
	case last == "key" && keyQualifiers[prev]:
	default:
		return ""
	}
	for _, p := range parts {
		if p == "aws" {
			return KindAWSSecret // confirmed against the value's shape later
		}
	}
	if len(parts) >= 3 && parts[len(parts)-3] == "secret" && prev == "access" {
		return KindAWSSecret
	}
	return KindCredential
}

// assignment checks whether the word src[i:j] is a credential name assigned
// a literal value, in any of the usual styles:
//
//	password = "..."  password := "..."  Password: "..."  "password": "..."
//	'password' => '...'  api_key: '...'  API_KEY=...  password: ... (YAML)
//
// and records the value (only the value) as a secret.
func (s *scanner) assignment(i, j int) {
	src := s.src
	if !keySuffix(src[i:j], i > 1 && src[i-1] == '-' && class[src[i-2]]&cWord != 0) {
		return
	}
	// The name may be kebab-case or dotted: api-key, db.password.
	ks := i
	for ks > 0 && (class[src[ks-1]]&cWord != 0 || src[ks-1] == '-') {
		ks--
	}
	kind := keyKind(src[ks:j])
	if kind == "" {
		return
	}
	n := len(src)
	p := closeKey(src, ks, j)
	for p < n && class[src[p]]&cSpace != 0 {
		p++
	}
	if p >= n {
		return
	}
	switch {
	case src[p] == ':' && p+1 < n && src[p+1] == '=':
		p += 2
	case src[p] == '=' && p+1 < n && src[p+1] == '>':
		p += 2
	case src[p] == '=':
		if p+1 < n && (src[p+1] == '=' || src[p+1] == '~') {
			return // a comparison or a match, not an assignment
		}
		p++
	case src[p] == ':':
		if p+1 < n && src[p+1] == ':' {
			return
		}
		p++
	default:
		return
	}
	for p < n && class[src[p]]&cSpace != 0 {
		p++
	}
	if p >= n {
		return
	}
	if c := src[p]; (c == 'b' || c == 'r' || c == 'u' || c == 'f' || c == 'B' || c == 'R') && p+1 < n && isQuote(src[p+1]) {
		p++ // Python string prefixes: b"...", r'...'
	}
	vs, ve, quoted, ok := value(src, ks, p)
	if !ok {
		return
	}
	v := src[vs:ve]
	if !plausibleSecret(v, kind, quoted) || hasPrefixFold(v, src[ks:j]) {
		return // not a secret, or a value named after its key: "encryptionKey1024"
	}
	if kind == KindAWSSecret && !(len(v) == 40 && allClass(v, cB64)) {
		kind = KindCredential
	}
	s.add(vs, ve, kind, prioAssignment)
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

func hasPrefixFold(v, prefix []byte) bool {
	return len(v) >= len(prefix) && bytes.EqualFold(v[:len(prefix)], prefix)
}

// bareLiteral decides whether an unquoted value ending at src[ve], assigned
// to the name starting at src[ks], is a literal rather than code. In code an
// unquoted value is an expression (token = tok.Next(), Key: testKey,), so
// only two shapes count: a configuration line, where the name starts the
// line and the value ends it (.env, YAML, INI, properties, shell:
// "export API_KEY=...", "  password: ..."), and a URL query parameter
// ("?token=...&").
func bareLiteral(src []byte, ks, ve int) bool {
	if ks > 0 && (src[ks-1] == '?' || src[ks-1] == '&') {
		return true
	}
	ls := bytes.LastIndexByte(src[:ks], '\n') + 1
	prefix := bytes.TrimLeft(src[ls:ks], " \t")
	prefix = bytes.TrimPrefix(prefix, []byte("export "))
	prefix = bytes.TrimPrefix(prefix, []byte("- "))
	if len(prefix) > 1 || len(prefix) == 1 && !isQuote(prefix[0]) {
		return false
	}
	for ve < len(src) && class[src[ve]]&cSpace != 0 {
		ve++
	}
	return ve == len(src) || src[ve] == '\n' || src[ve] == '\r' || src[ve] == '#'
}

var placeholders = map[string]bool{
	"password": true, "passwd": true, "secret": true, "token": true, "changeme": true,
	"change_me": true, "changeit": true, "example": true, "redacted": true, "placeholder": true,
	"dummy": true, "none": true, "null": true, "nil": true, "true": true, "false": true,
	"undefined": true, "test": true, "testing": true, "todo": true, "fixme": true,
	"string": true, "required": true, "optional": true, "empty": true, "hidden": true,
	"masked": true, "secret_key": true, "api_key": true, "apikey": true, "access_token": true,
}

// plausibleSecret rejects values that are obviously not secrets: empty or
// short, placeholders, templates and format strings, environment variable
// names, paths, URLs, numbers, and — when unquoted — identifiers and
// expressions.
func plausibleSecret(v []byte, kind string, quoted bool) bool {
	if len(v) < 4 || len(v) > 1024 || bytes.Contains(v, []byte(markerPrefix)) {
		return false
	}
	switch v[0] {
	case '$', '%', '{', '<', '#', '*', '&', '!', '@', '[', '(', '/', '~':
		return false
	}
	if bytes.HasPrefix(v, []byte("./")) || bytes.HasPrefix(v, []byte("../")) ||
		bytes.Contains(v, []byte("://")) || bytes.Contains(v, []byte("{{")) || bytes.Contains(v, []byte("${")) {
		return false
	}
	var upper, lower, digit, other, space, under, dots int
	for _, c := range v {
		switch cl := class[c]; {
		case cl&cUpper != 0:
			upper++
		case cl&cLower != 0:
			lower++
		case cl&cDigit != 0:
			digit++
		case c == ' ' || c == '\t':
			space++
		case c == '_':
			under++
		case c == '.':
			dots++
		case c == '%' && (bytes.Contains(v, []byte("%s")) || bytes.Contains(v, []byte("%v")) || bytes.Contains(v, []byte("%d"))):
			return false // a format string
		default:
			other++
		}
	}
	if space > 0 {
		return false // a message, not a secret
	}
	lv := string(bytes.ToLower(v))
	if placeholders[lv] || bytes.HasPrefix([]byte(lv), []byte("your")) || bytes.Count(v, v[:1]) == len(v) {
		return false
	}
	if upper > 0 && lower == 0 && digit == 0 && other == 0 && under > 0 {
		return false // an environment variable name: GITHUB_TOKEN
	}
	if isNumber(v) || bytes.Contains(v, []byte("\\u")) || bytes.Contains(v, []byte("\\x")) {
		return false // a number, or escaped characters: not a typed-in secret
	}
	if !quoted {
		// Unquoted, a value is a literal only if it could not be code: an
		// identifier or a dotted path (token.EOF, cfg.Password) is code.
		if digit == 0 && other == 0 {
			return false
		}
	}
	if kind != KindPassword && digit == 0 {
		// Tokens and keys are random: without digits, a short value or one
		// made of words ("X-Fake-Connection-Token") is a name.
		if other == 0 || len(v) < 16 {
			return false
		}
		if segs, chars := segments(v); segs > 0 && chars >= 3*segs {
			return false
		}
	}
	return true
}

// isNumber reports decimal and hexadecimal numbers, signed or not, with
// dots and digit separators: -1000, 1.2.3, 0x7f, 1_000.
func isNumber(v []byte) bool {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	if len(v) == 0 {
		return false
	}
	if isHexNumber(v) {
		return true
	}
	for _, c := range v {
		if class[c]&cDigit == 0 && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

// literal checks the string literal opening at src[i] for a random-looking
// base64 or hex value of 20 characters or more.
func (s *scanner) literal(i int) {
	src := s.src
	q := src[i]
	j := s.run(i+1, cB64)
	if j >= len(src) || src[j] != q && !escapedClose(src, i, j) || j-(i+1) < minEntropyLen {
		return
	}
	if v := src[i+1 : j]; looksRandom(v) && !sriDigest(v) {
		s.add(i+1, j, KindHighEntropy, prioEntropy)
	}
}

// sriDigest reports a Subresource Integrity value ("sha512-…" in npm lock
// files, "sha256-…" in Nix expressions and flake.lock): the base64 hash of
// public content, random-looking but no secret.
func sriDigest(v []byte) bool {
	for _, p := range [...]string{"sha1-", "sha256-", "sha384-", "sha512-"} {
		if bytes.HasPrefix(v, []byte(p)) {
			return true
		}
	}
	return false
}

// Thresholds of the high-entropy rule.
const (
	minEntropyLen = 20
	minEntropy    = 4.0 // bits per character
	minWordLen    = 2.3 // mean identifier-segment length of a word-like string
)

// looksRandom reports whether v (all base64 or hex characters) is a likely
// key: long, with letters of both cases, not a hex digest or number (hex
// caps at 4 bits per character: digests, checksums and ids look random and
// are not secrets), not an alphabet table, not shaped like an identifier,
// and with a Shannon entropy of 4 bits per character (less for short
// strings, which cannot reach it).
func looksRandom(v []byte) bool {
	var letters, hex, seq, upper, lower, vowels int
	for k, c := range v {
		cl := class[c]
		switch {
		case cl&cDigit != 0:
			hex++
		case cl&(cUpper|cLower) != 0:
			letters++
			if cl&cUpper != 0 {
				upper++
			} else {
				lower++
			}
			switch c | 0x20 {
			case 'a', 'e', 'i', 'o', 'u':
				vowels++
			}
			if c|0x20 <= 'f' {
				hex++
			}
		}
		if k > 0 && c == v[k-1]+1 {
			seq++
		}
	}
	if upper == 0 || lower == 0 || hex == len(v) || seq*3 > len(v) || isHexNumber(v) {
		// Single-case strings are identifiers (TEST_VALUE_1), base32 or hex;
		// base64 keys of this length mix cases with near certainty.
		return false
	}
	if segs, chars := segments(v); segs > 0 {
		// Shaped like an identifier: camelCase words and numbers, with
		// vowels ("ConvertToFloat64Int32x8": 8 segments of 2.9 characters).
		// Random base64 breaks into segments of 1.8 characters on average,
		// and few of its letters are vowels.
		if mean := float64(chars) / float64(segs); mean >= 3 || mean >= minWordLen && vowels*4 >= letters {
			return false
		}
	}
	// A short string cannot reach 4 bits per character unless nearly all
	// its characters differ (20 random base64 characters fall short a third
	// of the time), so the bar is lowered to what such strings reach.
	return entropy(v) >= min(minEntropy, math.Log2(float64(len(v)))-0.7)
}

// isHexNumber reports "0x..." and "-0x..." numbers.
func isHexNumber(v []byte) bool {
	v = bytes.TrimPrefix(v, []byte("-"))
	if len(v) < 3 || v[0] != '0' || v[1]|0x20 != 'x' {
		return false
	}
	for _, c := range v[2:] {
		if class[c]&cDigit == 0 && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}

// segments counts the parts of v as an identifier splitter would see them
// ("AES", "Decrypt", "64"), ignoring separators, and the characters in them.
func segments(v []byte) (n, chars int) {
	isUp := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLo := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isDi := func(c byte) bool { return c >= '0' && c <= '9' }
	for k := 0; k < len(v); {
		c := v[k]
		start := k
		k++
		switch {
		case isDi(c):
			for k < len(v) && isDi(v[k]) {
				k++
			}
		case isLo(c):
			for k < len(v) && isLo(v[k]) {
				k++
			}
		case isUp(c) && k < len(v) && isLo(v[k]):
			for k < len(v) && isLo(v[k]) {
				k++
			}
		case isUp(c):
			// An acronym, up to the capital that starts the next word.
			for k < len(v) && isUp(v[k]) && !(k+1 < len(v) && isLo(v[k+1])) {
				k++
			}
		default:
			continue // a separator: - _ + / = .
		}
		n++
		chars += k - start
	}
	return n, chars
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int32
	for _, c := range v {
		counts[c]++
	}
	n := float64(len(v))
	h := 0.0
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// urlCredential checks the URL whose "://" is at src[i] for a password in
// its user info: scheme://user:password@host.
func (s *scanner) urlCredential(i int) {
	src := s.src
	// A scheme: letters, digits, + . - starting with a letter.
	k := i
	for k > 0 && (class[src[k-1]]&(cUpper|cLower|cDigit) != 0 || src[k-1] == '+' || src[k-1] == '.' || src[k-1] == '-') {
		k--
	}
	if i-k < 2 || class[src[k]]&(cUpper|cLower) == 0 {
		return
	}
	u := i + 3
	colon, at := -1, -1
	for p := u; p < len(src) && p-u < 512; p++ {
		c := src[p]
		if c == '/' || c == '?' || c == '#' || class[c]&cBareStop != 0 && c != '&' && c != ';' && c != ',' && c != '|' {
			break
		}
		switch c {
		case ':':
			if colon < 0 && at < 0 {
				colon = p
			}
		case '@':
			at = p
		}
	}
	if colon < 0 || at < colon {
		return
	}
	if at+1 >= len(src) || class[src[at+1]]&(cUpper|cLower|cDigit) == 0 && src[at+1] != '[' {
		return // no host
	}
	pass := src[colon+1 : at]
	if len(pass) < 3 || bytes.Contains(pass, []byte(markerPrefix)) || pass[0] == '$' || pass[0] == '{' || pass[0] == '<' {
		return
	}
	if bytes.Contains(pass, []byte("%s")) || bytes.Contains(pass, []byte("%v")) || placeholders[string(bytes.ToLower(pass))] ||
		string(pass) == "pass" || bytes.Count(pass, pass[:1]) == len(pass) {
		return
	}
	s.add(colon+1, at, KindURLCredential, prioURL)
}
