package render

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/muesli/termenv"
)

// Markdown renders md with glamour at width cells: the "notty" style for the Ascii
// profile (NO_COLOR, tests), else "dark" or "light". It is slow (milliseconds), so
// callers run it inside a command and cache the result. On a rendering error it
// returns the text wrapped, never nothing.
func Markdown(md string, width int, profile termenv.Profile, dark bool) string {
	width = max(width, 10)
	style := "light"
	switch {
	case profile == termenv.Ascii:
		style = "notty"
	case dark:
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(
		glamour.WithStandardStyle(style),
		glamour.WithColorProfile(profile),
		glamour.WithWordWrap(width),
	)
	if err == nil {
		out, err := r.Render(md)
		if err == nil {
			return strings.Trim(out, "\n")
		}
	}
	return strings.Join(Wrap(md, width), "\n")
}
