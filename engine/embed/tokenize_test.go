package embed

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \t\n", nil},
		{"== != {}", nil},
		{"isEligibleForRefund", []string{"is", "eligible", "for", "refund"}},
		{"HTTPServer2", []string{"http", "server", "2"}},
		{"parse_csv-header", []string{"parse", "csv", "header"}},
		{"XMLHttpRequest", []string{"xml", "http", "request"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code"}},
		{"userID", []string{"user", "id"}},
		{"parseURLs", []string{"parse", "urls"}},
		{"IDsForUsers", []string{"ids", "for", "users"}},
		{"URLsafe", []string{"ur", "lsafe"}}, // acronym + lower-case word: the usual camelCase rule applies
		{"utf8Decode", []string{"utf", "8", "decode"}},
		{"sha256sum", []string{"sha", "256", "sum"}},
		{"x86_64", []string{"x", "86", "64"}},
		{"v1.2.3", []string{"v", "1", "2", "3"}},
		{"MAX_RETRY_COUNT", []string{"max", "retry", "count"}},
		{"__init__", []string{"init"}},
		{"A", []string{"a"}},
		{"ABC", []string{"abc"}},
		{"a.b.c", []string{"a", "b", "c"}},
		{"Refund the customer's payment.", []string{"refund", "the", "customer", "s", "payment"}},
		{"pkg.Func(ctx, x)", []string{"pkg", "func", "ctx", "x"}},
		{"ÜberSchön straße", []string{"über", "schön", "straße"}},
		{"ΣίσυφοςΜύθος", []string{"σίσυφος", "μύθος"}},
		{"日本語テキスト", []string{"日本語テキスト"}},
		{"café\u0301Noir", []string{"café\u0301", "noir"}},
		{"bad\xffbytes\xc3", []string{"bad", "bytes"}},
		{"١٢٣abc", []string{"١٢٣", "abc"}},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsStopWord(t *testing.T) {
	tests := []struct {
		tok  string
		want bool
	}{
		{"the", true}, {"func", true}, {"return", true}, {"self", true}, {"nil", true}, {"null", true},
		{"refund", false}, {"delete", false}, {"map", false}, {"", false}, {"The", false},
	}
	for _, tt := range tests {
		if got := IsStopWord(tt.tok); got != tt.want {
			t.Errorf("IsStopWord(%q) = %v, want %v", tt.tok, got, tt.want)
		}
	}
	// Every stop word must be a token Tokenize can produce, or it is dead.
	for _, w := range stopWords {
		if !reachable(w) {
			t.Errorf("stop word %q is not a single Tokenize token", w)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "isEligibleForRefund", "HTTPServer2", "a\xffb", "ÜberSchön", "x86_64", "IDsFor", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("Tokenize(%q) has an empty token: %q", s, toks)
			}
			if !utf8.ValidString(tok) {
				t.Fatalf("Tokenize(%q) token %q is not valid UTF-8", s, tok)
			}
			for _, r := range tok {
				if unicode.IsUpper(r) && unicode.ToLower(r) != r {
					t.Fatalf("Tokenize(%q) token %q is not lower-case", s, tok)
				}
				if !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) {
					t.Fatalf("Tokenize(%q) token %q holds separator %q", s, tok, r)
				}
			}
		}
		// Joining the tokens with spaces is a fixed point for ASCII input.
		if isASCII(s) {
			again := Tokenize(strings.Join(toks, " "))
			if !slices.Equal(again, toks) {
				t.Fatalf("Tokenize(join(Tokenize(%q))) = %q, want %q", s, again, toks)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func BenchmarkTokenize(b *testing.B) {
	text := "func (s *Server) handleRefundRequest(ctx context.Context, req *RefundRequest) error { // isEligibleForRefund checks HTTPServer2"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Tokenize(text)
	}
}
