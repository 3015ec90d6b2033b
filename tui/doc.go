// Package tui is spelunk's Bubble Tea program: a root model routing to one model per
// pane (search, symbol, graph, conflicts, memory). The engine is reached only through
// tea.Cmds.
package tui
