package render

import "github.com/charmbracelet/bubbles/textinput"

// InputView renders a text input. In colour it is the input's own view; without
// colour (NO_COLOR, dumb terminals) the cursor's reverse video is stripped and the
// cursor would be invisible, so a focused input draws it as a bar instead.
func InputView(in textinput.Model, plain bool) string {
	if !plain || !in.Focused() {
		return in.View()
	}
	v := []rune(in.Value())
	pos := min(max(in.Position(), 0), len(v))
	if len(v) == 0 {
		return in.Prompt + "▏" + in.Placeholder
	}
	return in.Prompt + string(v[:pos]) + "▏" + string(v[pos:])
}
