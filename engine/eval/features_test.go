package eval

import (
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// TestMaskWords: a history query loses every word whose tokens the changed
// code uses ("retry", "policy" from retryPolicy; "URLs" is another token than
// "url" and stays), keeps the rest in order, and is dropped when fewer than
// two words are left.
func TestMaskWords(t *testing.T) {
	code := map[string]bool{}
	for _, tok := range embed.Tokenize("func parseURL(raw string) (*URL, error) { return retryPolicy.Do(raw) }") {
		code[tok] = true
	}
	cases := map[string]string{
		"Fix parsing of URLs when the retry policy gives up early": "Fix parsing of URLs when the gives up early",
		"parse URL retry": "",
	}
	for in, want := range cases {
		if got := maskWords(in, code); got != want {
			t.Errorf("maskWords(%q) = %q, want %q", in, got, want)
		}
	}
}
