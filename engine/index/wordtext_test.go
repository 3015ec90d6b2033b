package index

import (
	"testing"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// TestWordTextIsTheStoredSearchText checks that WordText, computed from a
// symbol's stored columns, says what the columns symbols.search_name and
// search_signature held before migration 0022 (the writer's SearchText of the
// parsed names and signature), followed by the doc: the dense channel's soft
// matching reads the same words.
func TestWordTextIsTheStoredSearchText(t *testing.T) {
	for _, s := range []parse.Symbol{
		{Name: "isEligibleForRefund", QualifiedName: "billing.isEligibleForRefund", Signature: "func isEligibleForRefund(o *Order) bool", Doc: "isEligibleForRefund reports whether..."},
		{Name: "url_for", QualifiedName: "flask.helpers.url_for", Aliases: []string{"urlFor", "flask.url_for"}, Signature: "def url_for(endpoint, **values)"},
		{Name: "HTTPServer", QualifiedName: "net/http.HTTPServer", Signature: ""},
		{Name: "größe", QualifiedName: "Maß.größe", Signature: "func größe() int", Doc: "Ünïcode"},
		{Name: "x", QualifiedName: "x"},
	} {
		stored := pgText(SearchText(nameText(s))) + " " + pgText(SearchText(s.Signature)) + " " + pgText(s.Doc)
		got := WordText(pgText(s.Name), pgText(s.QualifiedName), pgTexts(s.Aliases), pgText(s.Signature), pgText(s.Doc))
		if got != stored {
			t.Errorf("%s: WordText %q, stored %q", s.Name, got, stored)
		}
	}
}
