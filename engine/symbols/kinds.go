package symbols

import (
	"slices"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// Kinds are the values a symbol row's kind can take: the chunk kinds the parsers
// emit, and field. A filter by any other kind can only match nothing, so the CLI
// and the MCP tools refuse one instead of answering an empty list.
var Kinds = []string{
	string(parse.KindFunction), string(parse.KindMethod), string(parse.KindClass),
	string(parse.KindStruct), string(parse.KindInterface), string(parse.KindType),
	string(parse.KindVar), string(parse.KindConst), string(parse.KindEnum),
	string(parse.KindNamespace), string(parse.KindModule), string(parse.KindBlock),
	string(parse.KindPart), string(parse.KindField),
}

// ValidKind reports whether k is one of Kinds.
func ValidKind(k string) bool { return slices.Contains(Kinds, k) }
