// Package redact keeps secrets out of the index: Redact replaces every
// secret it recognises in a file with a "[REDACTED:kind]" marker before the
// content is stored or embedded.
//
// It looks for known key formats (AWS, GitHub, Slack, Stripe, Google, JWT),
// private key blocks, credentials embedded in URLs, values assigned to
// names such as password, secret, token or api_key, and string literals
// random enough to be keys. It is a single pass over the bytes with cheap
// tests before any detailed check, and it never changes the number of lines,
// so line ranges computed on the original stay valid.
package redact

import (
	"bytes"
	"slices"
)

// Finding is one redacted secret.
type Finding struct {
	Kind string // one of the Kind constants
	Line int    // 1-based line where the secret starts
}

// The kinds of secrets, as they appear in markers and findings.
const (
	KindAWSAccessKey  = "aws-access-key" // AKIA/ASIA/ABIA/ACCA + 16 upper-case letters or digits
	KindAWSSecret     = "aws-secret"     // 40 base64 characters assigned to an AWS secret name
	KindGitHubToken   = "github-token"   // ghp_, gho_, ghs_, ghu_, ghr_, github_pat_
	KindSlackToken    = "slack-token"    // xoxa-, xoxb-, xoxp-, xoxr-, xoxs-
	KindStripeKey     = "stripe-key"     // sk_live_, rk_live_
	KindGoogleAPIKey  = "google-api-key" // AIza + 35
	KindJWT           = "jwt"            // eyJ....eyJ....signature
	KindPrivateKey    = "private-key"    // -----BEGIN ... PRIVATE KEY----- ... -----END ...-----
	KindURLCredential = "url-credential" // the password in scheme://user:password@host
	KindPassword      = "password"       // the value assigned to password, passwd, pwd, passphrase...
	KindCredential    = "credential"     // the value assigned to secret, token, api_key, credentials...
	KindHighEntropy   = "high-entropy"   // a random-looking base64 string literal
)

// markerPrefix starts every replacement; text already holding it is not
// redacted again, so Redact is idempotent.
const markerPrefix = "[REDACTED:"

// Redact returns src with every secret replaced by "[REDACTED:kind]", and
// the findings in order. Only the secret itself is replaced: for an
// assignment the value, for a URL the password. Line count is kept: a
// multi-line private key becomes the marker followed by the same line
// breaks. When nothing is found src itself is returned, not a copy.
func Redact(src []byte) ([]byte, []Finding) {
	s := scanner{src: src}
	s.scan()
	if len(s.spans) == 0 {
		return src, nil
	}
	return s.render()
}

// Span priorities: when spans overlap they are merged and the kind of the
// most specific one names the result.
const (
	prioEntropy = iota + 1
	prioAssignment
	prioURL
	prioToken
	prioPrivateKey
)

type span struct {
	start, end int
	kind       string
	prio       int
}

type scanner struct {
	src   []byte
	spans []span
}

func (s *scanner) add(start, end int, kind string, prio int) {
	if end > start {
		s.spans = append(s.spans, span{start, end, kind, prio})
	}
}

// Character classes.
const (
	cWord     = 1 << iota // [A-Za-z0-9_]: identifiers and most token bodies
	cTail                 // [A-Za-z0-9_-]: Google keys, JWT segments, Slack tokens
	cB64                  // [A-Za-z0-9+/=_-]: base64 (standard and URL-safe) and hex
	cSpace                // space, tab
	cUpper                // [A-Z]
	cLower                // [a-z]
	cDigit                // [0-9]
	cBareStop             // ends a bare (unquoted) value
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'A' && c <= 'Z':
			t[c] |= cWord | cTail | cB64 | cUpper
		case c >= 'a' && c <= 'z':
			t[c] |= cWord | cTail | cB64 | cLower
		case c >= '0' && c <= '9':
			t[c] |= cWord | cTail | cB64 | cDigit
		case c == '_':
			t[c] |= cWord | cTail | cB64
		case c == '-':
			t[c] |= cTail | cB64
		case c == '+' || c == '/' || c == '=':
			t[c] |= cB64
		case c == ' ' || c == '\t':
			t[c] |= cSpace
		}
	}
	for _, c := range []byte(" \t\r\n\"'`()[]{}<>,;&|\\") {
		t[c] |= cBareStop
	}
	return t
}()

func (s *scanner) scan() {
	src := s.src
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		if class[c]&cWord != 0 {
			j := i + 1
			for j < n && class[src[j]]&cWord != 0 {
				j++
			}
			if end, kind := s.token(i, j); end > 0 {
				s.add(i, end, kind, prioToken)
				i = end
				continue
			}
			s.assignment(i, j)
			i = j
			continue
		}
		switch c {
		case '"', '\'', '`':
			s.literal(i)
		case ':':
			if i+2 < n && src[i+1] == '/' && src[i+2] == '/' {
				s.urlCredential(i)
			}
		case '-':
			if end := s.privateKey(i); end > i {
				s.add(i, end, KindPrivateKey, prioPrivateKey)
				i = end
				continue
			}
		}
		i++
	}
}

// render builds the redacted copy and the findings from the spans.
func (s *scanner) render() ([]byte, []Finding) {
	src := s.src
	spans := s.spans
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	// Merge overlapping spans into their union: redacting more is the safe
	// side, and it leaves nothing a second pass could find.
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			if sp.prio > last.prio {
				last.kind, last.prio = sp.kind, sp.prio
			}
			continue
		}
		merged = append(merged, sp)
	}

	out := make([]byte, 0, len(src)+len(merged)*8)
	findings := make([]Finding, 0, len(merged))
	line, counted, prev := 1, 0, 0
	for _, sp := range merged {
		line += bytes.Count(src[counted:sp.start], []byte{'\n'})
		counted = sp.start
		findings = append(findings, Finding{Kind: sp.kind, Line: line})
		out = append(out, src[prev:sp.start]...)
		out = append(out, markerPrefix...)
		out = append(out, sp.kind...)
		out = append(out, ']')
		// Keep every line break the secret spanned, CRLF included.
		for k := sp.start; k < sp.end; k++ {
			if src[k] == '\n' {
				if k > sp.start && src[k-1] == '\r' {
					out = append(out, '\r')
				}
				out = append(out, '\n')
			}
		}
		prev = sp.end
	}
	out = append(out, src[prev:]...)
	return out, findings
}

// run returns the end of the run of bytes of class cl starting at i.
func (s *scanner) run(i int, cl uint8) int {
	for i < len(s.src) && class[s.src[i]]&cl != 0 {
		i++
	}
	return i
}

func allClass(b []byte, cl uint8) bool {
	for _, c := range b {
		if class[c]&cl == 0 {
			return false
		}
	}
	return true
}

// token recognises a known key format starting at the word src[i:j] and
// returns its end, which may lie past j for formats with '-' or '.'.
func (s *scanner) token(i, j int) (int, string) {
	src := s.src
	w := src[i:j]
	if len(w) < 4 {
		return 0, ""
	}
	switch w[0] {
	case 'A':
		switch string(w[:4]) {
		case "AKIA", "ASIA", "ABIA", "ACCA":
			if len(w) == 20 && allClass(w[4:], cUpper|cDigit) {
				return j, KindAWSAccessKey
			}
		case "AIza":
			if end := s.run(i, cTail); end-i == 39 {
				return end, KindGoogleAPIKey
			}
		}
	case 'g':
		switch {
		case len(w) >= 40 && w[1] == 'h' && w[3] == '_' && bytes.IndexByte([]byte("posur"), w[2]) >= 0:
			if allClass(w[4:], cUpper|cLower|cDigit) {
				return j, KindGitHubToken
			}
		case len(w) >= 11+22 && bytes.HasPrefix(w, []byte("github_pat_")):
			return j, KindGitHubToken
		}
	case 'x':
		if len(w) == 4 && w[1] == 'o' && w[2] == 'x' && bytes.IndexByte([]byte("abeoprs"), w[3]) >= 0 &&
			j < len(src) && src[j] == '-' {
			end := s.run(j, cTail)
			body := src[j+1 : end]
			if len(body) >= 10 && bytes.IndexFunc(body, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 {
				return end, KindSlackToken
			}
		}
	case 's', 'r':
		if len(w) >= 8+16 && string(w[1:8]) == "k_live_" && allClass(w[8:], cUpper|cLower|cDigit) {
			return j, KindStripeKey
		}
	case 'e':
		if w[1] == 'y' && w[2] == 'J' {
			return s.jwt(i)
		}
	}
	return 0, ""
}

// jwt matches header.payload.signature, both JSON parts base64url of "{".
func (s *scanner) jwt(i int) (int, string) {
	src := s.src
	h := s.run(i, cTail)
	if h-i < 10 || h+4 >= len(src) || src[h] != '.' || string(src[h+1:h+4]) != "eyJ" {
		return 0, ""
	}
	p := s.run(h+1, cTail)
	if p-(h+1) < 7 || p+1 >= len(src) || src[p] != '.' {
		return 0, ""
	}
	sig := s.run(p+1, cTail)
	if sig == p+1 {
		return 0, ""
	}
	return sig, KindJWT
}

var (
	beginMarker = []byte("-----BEGIN ")
	endMarker   = []byte("-----END ")
	dashes      = []byte("-----")
)

// privateKeyWindow bounds the search for a block's END line.
const privateKeyWindow = 64 << 10

// privateKey matches a PEM or PGP private key block starting at src[i] and
// returns its end, or i.
func (s *scanner) privateKey(i int) int {
	src := s.src
	if !bytes.HasPrefix(src[i:], beginMarker) {
		return i
	}
	lineEnd := bytes.IndexByte(src[i:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += i
	}
	labelStart := i + len(beginMarker)
	h := bytes.Index(src[labelStart:lineEnd], dashes)
	if h < 0 {
		return i
	}
	label := src[labelStart : labelStart+h]
	if !bytes.HasSuffix(label, []byte("PRIVATE KEY")) && !bytes.HasSuffix(label, []byte("PRIVATE KEY BLOCK")) {
		return i
	}
	body := labelStart + h + len(dashes)
	window := src[body:min(len(src), body+privateKeyWindow)]
	if e := bytes.Index(window, endMarker); e >= 0 {
		e += body + len(endMarker)
		if c := bytes.Index(src[e:min(len(src), e+64)], dashes); c >= 0 {
			return e + c + len(dashes)
		}
	}
	// No END (a truncated key): take the body lines that follow.
	end := body
	for p := body; p < len(src); {
		nl := bytes.IndexByte(src[p:], '\n')
		next := len(src)
		if nl >= 0 {
			next = p + nl + 1
		}
		line := bytes.TrimSpace(src[p:next])
		switch {
		case p == body:
			// The rest of the BEGIN line: an inline key with escaped newlines.
			end = p + len(bytes.TrimRight(src[p:next], "\r\n"))
		case len(line) > 0 && (allClass(line, cB64) || bytes.IndexByte(line, ':') > 0 && bytes.IndexByte(line, ' ') > 0 && len(line) < 100):
			end = p + len(bytes.TrimRight(src[p:next], "\r\n"))
		default:
			return end
		}
		p = next
	}
	return end
}
