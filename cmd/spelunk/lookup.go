package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// explainNoSymbolAt says why PATH:LINE named no definition: the file is not
// indexed (a typo, an ignored or skipped file), the line is past the file's
// last definition, or the line lies between definitions.
func explainNoSymbolAt(cmd *cobra.Command, db *pg.DB, rec pg.Repository, path string, line int) error {
	var indexed bool
	var last int
	err := db.Pool.QueryRow(cmd.Context(), `
		SELECT EXISTS (SELECT 1 FROM files WHERE repository_id = $1 AND path = $2),
		       coalesce((SELECT max(end_line) FROM symbols WHERE repository_id = $1 AND path = $2), 0)`,
		rec.ID, path).Scan(&indexed, &last)
	if err != nil {
		return fmt.Errorf("look up %s: %w", path, err)
	}
	switch {
	case !indexed:
		return fmt.Errorf("no file %s is indexed in %s (paths are relative to the repository root; spelunk status lists skipped files)", path, rec.Root)
	case line > last:
		return fmt.Errorf("%s has no definition at line %d: its last indexed line is %d", path, line, last)
	}
	return fmt.Errorf("no definition covers %s:%d (spelunk symbols --path %s lists the file's)", path, line, path)
}
