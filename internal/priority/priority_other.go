//go:build !linux

// Package priority lowers the CPU priority of bulk work; outside Linux it does
// nothing.
package priority

// LowerProcess does nothing here and returns 0.
func LowerProcess(nice int) int { return 0 }
