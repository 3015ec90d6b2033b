package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/doctor"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check git, PostgreSQL, pgvector, pg_trgm, migrations and the embedder; name the fix for each failure",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := g.db
			if url == "" {
				url = os.Getenv("SPELUNK_DATABASE_URL")
			}
			checks := doctor.Run(cmd.Context(), doctor.Options{DatabaseURL: url, Embedder: embedderStatus(&g.embed)})
			if g.json {
				if err := json.NewEncoder(os.Stdout).Encode(checks); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					mark := "ok  "
					switch {
					case !c.OK:
						mark = "FAIL"
					case c.Warn:
						mark = "warn"
					}
					fmt.Printf("%s  %-20s %s\n", mark, c.Name, c.Detail)
					if c.Fix != "" && (!c.OK || c.Warn) {
						fmt.Printf("      %-20s fix: %s\n", "", c.Fix)
					}
				}
			}
			if doctor.Failed(checks) {
				return errors.New("some checks failed")
			}
			return nil
		},
	}
}
