// Package tui is spelunk's terminal UI: a Bubble Tea program with one root model
// (tabs, focus, layout, global keys, the back stack, the status bar and help)
// routing to one model per pane:
//
//	1 Search     tui/searchview    hybrid results with per-channel ranks and scores, explain, tuning, judgments
//	2 Symbol     tui/symbolview    highlighted source, callers/callees/definition jumps
//	3 Graph      tui/graphview     lazy, multi-hop call and import trees
//	4 Conflicts  tui/conflictview  the DISPUTED memory queue and its resolutions
//	5 Memory     tui/memoryview    the briefing
//
// Panes reach the engine only through the consumer-side Backend interface, and only
// inside tea.Cmds: every asynchronous result comes back as a typed message that
// carries the tag of the request it answers and names the pane that asked
// (event.Routed), so the root routes it without guessing and the pane drops stale
// answers. Failures travel as the single event.ErrorMsg and show in the status bar.
// Colours come from one palette (tui/theme) rendered once for the output; source
// highlighting and Markdown run inside commands (tui/render) and their output is cached.
//
// tui/backend implements Backend over the engine packages; cmd/spelunk starts the
// program on it.
package tui
