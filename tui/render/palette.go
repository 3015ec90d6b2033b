package render

import (
	"strings"

	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// tokenStyle is how one token category is drawn: a colour for dark and one for
// light terminals, and the attributes both share.
type tokenStyle struct {
	dark, light  string // hex colours; "" leaves the terminal's colour
	bold, italic bool
}

// palette is spelunk's own highlighting scheme, keyed by token class
// (parse.Class). A handful of roles is what a code viewer needs; the colours
// are chosen to stay readable on the 256-colour profile, to which termenv
// rounds them.
var palette = map[parse.Class]tokenStyle{
	parse.Keyword:  {dark: "#ff7a90", light: "#c4163a"},
	parse.Constant: {dark: "#7ab8ff", light: "#0550ae"},
	parse.Type:     {dark: "#ffae57", light: "#9a4d00"},
	parse.Function: {dark: "#d2a8ff", light: "#6f42c1"},
	parse.String:   {dark: "#a5d6ff", light: "#0a3069"},
	parse.Number:   {dark: "#7ab8ff", light: "#0550ae"},
	parse.Operator: {dark: "#ff7a90", light: "#c4163a"},
	parse.Comment:  {dark: "#8b949e", light: "#6e7781", italic: true},
}

// headingStyle draws Markdown headings.
var headingStyle = tokenStyle{dark: "#7ab8ff", light: "#0550ae", bold: true}

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
