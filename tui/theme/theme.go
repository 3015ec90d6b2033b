// Package theme turns a palette of semantic colours into the TUI's styles, once,
// for one output. Colours are adaptive (a light and a dark variant); the colour
// profile comes from the output's environment, so NO_COLOR (and a dumb terminal)
// yields plain text, and tests force a fixed profile.
package theme

import (
	"io"
	"os"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Palette holds the semantic colours the styles are built from.
type Palette struct {
	Accent   lipgloss.AdaptiveColor // focus, the active tab, titles
	Text     lipgloss.AdaptiveColor
	Muted    lipgloss.AdaptiveColor // secondary text: paths, line numbers, help
	Faint    lipgloss.AdaptiveColor // greyed items: pruned results, separators
	Good     lipgloss.AdaptiveColor // fresh index, relevant marks
	Warn     lipgloss.AdaptiveColor // stale index, working-tree revisions
	Bad      lipgloss.AdaptiveColor // errors, not-relevant marks
	SelectBg lipgloss.AdaptiveColor // the selected row
	BarBg    lipgloss.AdaptiveColor // the status bar
	Dense    lipgloss.AdaptiveColor // one colour per retrieval channel
	Lexical  lipgloss.AdaptiveColor
	Symbol   lipgloss.AdaptiveColor
	Graph    lipgloss.AdaptiveColor
}

// DefaultPalette is spelunk's palette.
func DefaultPalette() Palette {
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	return Palette{
		Accent:   c("#5A4FCF", "#9D8CFF"),
		Text:     c("#1F1F24", "#E4E4EA"),
		Muted:    c("#6B6B78", "#9A9AA8"),
		Faint:    c("#A8A8B3", "#5C5C68"),
		Good:     c("#1E7F3C", "#5FD38D"),
		Warn:     c("#A66300", "#F2B84B"),
		Bad:      c("#C0262D", "#FF6B6B"),
		SelectBg: c("#E6E3FF", "#2E2A4F"),
		BarBg:    c("#ECECF2", "#24242C"),
		Dense:    c("#0B6FB8", "#6CB6FF"),
		Lexical:  c("#8A4B00", "#E8A15C"),
		Symbol:   c("#7A2E9E", "#D08CFF"),
		Graph:    c("#1E7F6A", "#4FD6B8"),
	}
}

// Options choose the output and, for tests, force what is otherwise detected.
type Options struct {
	Output  io.Writer        // default os.Stdout
	Profile *termenv.Profile // nil = from the environment (NO_COLOR honoured)
	Dark    *bool            // nil = ask the terminal
}

// Theme is the palette rendered for one output: styles built once, shared by
// every pane, read-only afterwards (safe to use from commands).
type Theme struct {
	R       *lipgloss.Renderer
	Profile termenv.Profile
	Dark    bool
	P       Palette

	Title       lipgloss.Style // pane titles and symbol names
	Text        lipgloss.Style
	Bold        lipgloss.Style
	Muted       lipgloss.Style
	Faint       lipgloss.Style
	Accent      lipgloss.Style
	Good        lipgloss.Style
	Warn        lipgloss.Style
	Bad         lipgloss.Style
	Selected    lipgloss.Style // a selected row
	Cursor      lipgloss.Style // the cursor line of the source viewer
	LineNo      lipgloss.Style
	LineNoCur   lipgloss.Style
	Tab         lipgloss.Style
	TabActive   lipgloss.Style
	StatusBar   lipgloss.Style
	StatusKey   lipgloss.Style // a key hint inside the status bar
	Header      lipgloss.Style // table headers
	Rule        lipgloss.Style // horizontal separators
	Kind        lipgloss.Style // kind tags
	Input       lipgloss.Style // text typed into inputs
	Placeholder lipgloss.Style
	Prompt      lipgloss.Style
	PromptFocus lipgloss.Style
	Inexact     lipgloss.Style            // a graph link not known exactly (inferred, ambiguous): dimmed
	Channel     map[string]lipgloss.Style // by channel name
	Help        help.Styles
}

// New builds the theme for opts.
func New(opts Options) *Theme {
	out := opts.Output
	if out == nil {
		out = os.Stdout
	}
	r := lipgloss.NewRenderer(out)
	if opts.Profile != nil {
		r.SetColorProfile(*opts.Profile)
	}
	if opts.Dark != nil {
		r.SetHasDarkBackground(*opts.Dark)
	}
	t := &Theme{R: r, Profile: r.ColorProfile(), Dark: r.HasDarkBackground(), P: DefaultPalette()}
	p := t.P
	s := r.NewStyle
	t.Title = s().Bold(true).Foreground(p.Accent)
	t.Text = s().Foreground(p.Text)
	t.Bold = s().Bold(true)
	t.Muted = s().Foreground(p.Muted)
	t.Faint = s().Foreground(p.Faint)
	t.Accent = s().Foreground(p.Accent)
	t.Good = s().Foreground(p.Good)
	t.Warn = s().Foreground(p.Warn)
	t.Bad = s().Foreground(p.Bad)
	t.Selected = s().Background(p.SelectBg).Bold(true)
	t.Cursor = s().Background(p.SelectBg)
	t.LineNo = s().Foreground(p.Faint)
	t.LineNoCur = s().Foreground(p.Accent).Bold(true)
	t.Tab = s().Foreground(p.Muted).Padding(0, 1)
	t.TabActive = s().Foreground(p.Accent).Bold(true).Underline(true).Padding(0, 1)
	t.StatusBar = s().Background(p.BarBg).Foreground(p.Text)
	t.StatusKey = s().Background(p.BarBg).Foreground(p.Accent).Bold(true)
	t.Header = s().Foreground(p.Muted).Bold(true)
	t.Rule = s().Foreground(p.Faint)
	t.Kind = s().Foreground(p.Muted)
	t.Input = s().Foreground(p.Text)
	t.Placeholder = s().Foreground(p.Faint)
	t.Prompt = s().Foreground(p.Muted)
	t.PromptFocus = s().Foreground(p.Accent).Bold(true)
	t.Inexact = s().Foreground(p.Faint).Italic(true)
	t.Channel = map[string]lipgloss.Style{
		"dense":   s().Foreground(p.Dense),
		"lexical": s().Foreground(p.Lexical),
		"symbol":  s().Foreground(p.Symbol),
		"graph":   s().Foreground(p.Graph),
	}
	t.Help = help.Styles{
		Ellipsis:       s().Foreground(p.Faint),
		ShortKey:       s().Foreground(p.Accent),
		ShortDesc:      s().Foreground(p.Muted),
		ShortSeparator: s().Foreground(p.Faint),
		FullKey:        s().Foreground(p.Accent),
		FullDesc:       s().Foreground(p.Muted),
		FullSeparator:  s().Foreground(p.Faint),
	}
	return t
}

// Plain reports whether the theme renders without any colour or attribute (the
// Ascii profile: NO_COLOR, a dumb terminal, tests). Views then rely on glyphs
// (a ▸ on the selected row) rather than colour alone.
func (t *Theme) Plain() bool { return t.Profile == termenv.Ascii }

// ChannelStyle returns the style of a retrieval channel.
func (t *Theme) ChannelStyle(name string) lipgloss.Style {
	if st, ok := t.Channel[name]; ok {
		return st
	}
	return t.Text
}
