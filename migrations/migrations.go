// Package migrations embeds spelunk's numbered SQL migrations. engine/pg applies them.
package migrations

import "embed"

// FS holds every NNNN_name.sql file of this directory.
//
//go:embed *.sql
var FS embed.FS
