package render

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/muesli/termenv"
)

// tokenStyle is how one token category is drawn: a colour for dark and one for
// light terminals, and the attributes both share.
type tokenStyle struct {
	dark, light  string // hex colours; "" leaves the terminal's colour
	bold, italic bool
}

// palette is spelunk's own highlighting scheme, keyed by chroma token category;
// a token without an entry takes its parent category's (Highlighter.lookup).
// It replaces chroma's style registry, whose package parses ~70 XML styles
// at start-up (8.7 ms of every CLI process, GODEBUG=inittrace=1) to use two.
// A dozen roles is what a code viewer needs; the colours are chosen to stay
// readable on the 256-colour profile, to which termenv rounds them.
var palette = map[chroma.TokenType]tokenStyle{
	chroma.Keyword:              {dark: "#ff7a90", light: "#c4163a"},
	chroma.KeywordConstant:      {dark: "#7ab8ff", light: "#0550ae"},
	chroma.KeywordType:          {dark: "#ffae57", light: "#9a4d00"},
	chroma.Name:                 {},
	chroma.NameBuiltin:          {dark: "#7ab8ff", light: "#0550ae"},
	chroma.NameFunction:         {dark: "#d2a8ff", light: "#6f42c1"},
	chroma.NameClass:            {dark: "#ffae57", light: "#9a4d00", bold: true},
	chroma.NameDecorator:        {dark: "#d2a8ff", light: "#6f42c1"},
	chroma.NameTag:              {dark: "#7ee787", light: "#116329"},
	chroma.NameAttribute:        {dark: "#7ab8ff", light: "#0550ae"},
	chroma.LiteralString:        {dark: "#a5d6ff", light: "#0a3069"},
	chroma.LiteralStringEscape:  {dark: "#7ab8ff", light: "#0550ae", bold: true},
	chroma.LiteralNumber:        {dark: "#7ab8ff", light: "#0550ae"},
	chroma.Operator:             {dark: "#ff7a90", light: "#c4163a"},
	chroma.OperatorWord:         {dark: "#ff7a90", light: "#c4163a"},
	chroma.Comment:              {dark: "#8b949e", light: "#6e7781", italic: true},
	chroma.CommentPreproc:       {dark: "#ff7a90", light: "#c4163a"},
	chroma.GenericInserted:      {dark: "#7ee787", light: "#116329"},
	chroma.GenericDeleted:       {dark: "#ffa198", light: "#82071e"},
	chroma.GenericHeading:       {dark: "#7ab8ff", light: "#0550ae", bold: true},
	chroma.GenericSubheading:    {dark: "#7ab8ff", light: "#0550ae"},
	chroma.GenericStrong:        {bold: true},
	chroma.GenericEmph:          {italic: true},
	chroma.Error:                {dark: "#ffa198", light: "#82071e"},
	chroma.LiteralStringSymbol:  {dark: "#7ab8ff", light: "#0550ae"},
	chroma.LiteralStringRegex:   {dark: "#7ee787", light: "#116329"},
	chroma.NameVariableInstance: {dark: "#7ab8ff", light: "#0550ae"},
}

// sequence is the SGR prefix drawing s on profile ("" when it draws nothing).
func (s tokenStyle) sequence(profile termenv.Profile, dark bool) string {
	colour := s.light
	if dark {
		colour = s.dark
	}
	var attrs []string
	if colour != "" {
		if seq := profile.Color(colour).Sequence(false); seq != "" {
			attrs = append(attrs, seq)
		}
	}
	if s.bold {
		attrs = append(attrs, "1")
	}
	if s.italic {
		attrs = append(attrs, "3")
	}
	if len(attrs) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(attrs, ";") + "m"
}
