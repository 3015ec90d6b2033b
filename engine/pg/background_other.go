//go:build !linux

package pg

import "github.com/jackc/pgx/v5"

// lowerBackend is a no-op where backends' priorities are not set (see
// background_linux.go).
func lowerBackend(*pgx.Conn) {}
