package index

import (
	"path"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// SearchText turns code into what the full-text index stores. Code is not English:
// to_tsvector('simple', 'isEligibleForRefund') is one token, so every identifier is
// kept whole (lower-cased, for exact lookups) and also split into its words
// (is eligible for refund), the same split the query side applies (embed.Tokenize).
func SearchText(s string) string {
	b := make([]byte, 0, len(s)+len(s)/4)
	var toks embed.Tokens
	eachWord(s, func(word string) {
		if lowerASCII(word) { // its one token is itself
			b = append(append(b, word...), ' ')
			return
		}
		lower := len(b)
		b = append(embed.AppendLower(b, word), ' ')
		parts, n := len(b), 0
		toks.Reset(word)
		for t := toks.Next(); t != nil; t = toks.Next() {
			b = append(append(b, t...), ' ')
			n++
		}
		// The word's parts follow it unless it is its only part.
		if n == 1 && string(b[parts:]) == string(b[lower:parts]) {
			b = b[:parts]
		}
	})
	return strings.TrimSpace(string(b))
}

// eachWord calls f with each maximal run of identifier bytes in s: ASCII
// letters and digits, '_', and every byte of a non-ASCII character.
func eachWord(s string, f func(word string)) {
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		f(s[start:])
	}
}

// lowerASCII reports whether word is only the letters a-z: a token as it is.
func lowerASCII(word string) bool {
	for i := 0; i < len(word); i++ {
		if c := word[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// IsTest reports whether path holds tests or examples. Such files are word-rich and
// crowd out library code in retrieval, so search ranks them lower (docs/ARCHITECTURE.md §6).
func IsTest(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	switch {
	case strings.HasSuffix(lower, "_test.go"),
		strings.HasPrefix(lower, "test_") && strings.HasSuffix(lower, ".py"),
		strings.HasSuffix(lower, "_test.py"),
		lower == "conftest.py",
		strings.Contains(lower, ".test."), strings.Contains(lower, ".spec."),
		strings.HasSuffix(lower, "_spec.rb"), strings.HasSuffix(lower, "_test.rb"),
		classTest(base, ".java"), classTest(base, ".kt"), classTest(base, ".cs"), classTest(base, ".php"):
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if strings.HasSuffix(strings.ToLower(dir), ".tests") {
			return true // a C# test project: Acme.Orders.Tests
		}
		switch strings.ToLower(dir) {
		// Not "testing": Go's testing package (and others of that name) is code.
		case "test", "tests", "__tests__", "testdata", "spec", "specs",
			"example", "examples", "_examples", "e2e", "fixtures", "benchmark", "benchmarks":
			return true
		}
	}
	return false
}

// dirOf is a file's directory, "" at the repository root.
func dirOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// classTest reports whether base is a test class file of a language whose
// files are named after their class: FooTest.java, FooTests.cs, FooIT.java,
// TestFoo.php. Case decides the word boundary: Latest.java, Contest.cs and
// SPLIT.java are not tests.
func classTest(base, ext string) bool {
	name, ok := strings.CutSuffix(base, ext)
	if !ok || name == "" {
		return false
	}
	for _, suf := range []string{"Tests", "Test"} {
		if stem, ok := strings.CutSuffix(name, suf); ok && stem != "" {
			return true
		}
	}
	if stem, ok := strings.CutSuffix(name, "IT"); ok && stem != "" && isLowerASCII(stem[len(stem)-1]) {
		return true
	}
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && rest != "" && !isLowerASCII(rest[0])
}

func isLowerASCII(b byte) bool { return b >= 'a' && b <= 'z' }
