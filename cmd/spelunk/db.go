package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
)

func newDBCmd(g *globals) *cobra.Command {
	var dataDir string
	var throwaway bool
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Manage the embedded PostgreSQL cluster (status, start, stop, url); distribute over Citus",
		Long: "spelunk runs its own PostgreSQL cluster when no --db / SPELUNK_DATABASE_URL is given:\n" +
			"data in " + pg.DefaultDataDir() + ", reachable only through a Unix socket (no TCP).\n" +
			"It starts on demand and keeps running for the next command.",
	}
	cmd.PersistentFlags().StringVar(&dataDir, "data-dir", "", "cluster data directory (default "+pg.DefaultDataDir()+")")
	cmd.PersistentFlags().BoolVar(&throwaway, "throwaway", false, "run without fsync (test clusters only: a crash can lose data)")
	_ = cmd.PersistentFlags().MarkHidden("throwaway")
	cluster := func() (*pg.Cluster, error) {
		d := dataDir
		if d == "" {
			d = pg.DefaultDataDir()
		}
		c, err := pg.NewCluster(d)
		if err == nil {
			c.Throwaway = throwaway
		}
		return c, err
	}
	status := &cobra.Command{
		Use: "status", Short: "Show whether the embedded cluster runs, and where", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster()
			if err != nil {
				return err
			}
			st, err := c.Status(cmd.Context())
			if err != nil {
				return err
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(map[string]any{
					"data_dir": st.DataDir, "socket": c.SocketPath(), "initialized": st.Initialized,
					"running": st.Running, "pid": st.PID, "log": st.LogFile, "url": c.URL("spelunk"),
				})
			}
			state := "stopped"
			switch {
			case !st.Initialized:
				state = "not created yet (any spelunk command creates it)"
			case st.Running:
				state = fmt.Sprintf("running (pid %d)", st.PID)
			}
			v, _ := c.ServerVersion(cmd.Context())
			fmt.Printf("cluster:  %s\nserver:   %s\ndata:     %s\nsocket:   %s\nlog:      %s\nurl:      %s\n",
				state, v, st.DataDir, c.SocketPath(), st.LogFile, c.URL("spelunk"))
			return nil
		},
	}
	start := &cobra.Command{
		Use: "start", Short: "Start the embedded cluster (creating it on first use)", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster()
			if err != nil {
				return err
			}
			if err := c.Start(cmd.Context()); err != nil {
				return err
			}
			if err := c.EnsureDatabase(cmd.Context(), "spelunk"); err != nil {
				return err
			}
			if !g.json {
				fmt.Fprintf(os.Stderr, "PostgreSQL running on %s\n", c.SocketPath())
			}
			return nil
		},
	}
	stop := &cobra.Command{
		Use: "stop", Short: "Stop the embedded cluster", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster()
			if err != nil {
				return err
			}
			return c.Stop(cmd.Context())
		},
	}
	url := &cobra.Command{
		Use: "url", Short: "Print the embedded cluster's connection URL (for psql and scripts)", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster()
			if err != nil {
				return err
			}
			fmt.Println(c.URL("spelunk"))
			return nil
		},
	}
	return cmdGroup(cmd, status, start, stop, url, newDistributeCmd(g))
}

// newDistributeCmd is `spelunk db distribute`: the tables of the database at
// --db spread over the Citus cluster it is the coordinator of (docs/OPERATIONS.md).
func newDistributeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "distribute",
		Short: "Distribute the tables by repository over a Citus cluster (--db: its coordinator)",
		Long: "Migrates the database at --db, then makes its repository-keyed tables Citus distributed\n" +
			"tables (by repository_id, co-located) and the rest reference tables, and creates the\n" +
			"login role of --tenant that the workers see. Run it again after an upgrade (new tables)\n" +
			"and once per further tenant.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := g.db
			if url == "" {
				url = os.Getenv("SPELUNK_DATABASE_URL")
			}
			if url == "" {
				return usagef("spelunk db distribute needs the Citus coordinator's URL: --db URL or $SPELUNK_DATABASE_URL (the embedded cluster has no Citus)")
			}
			db, err := pg.Open(cmd.Context(), pg.Options{URL: url, Tenant: g.tenant, MaxConns: 1, OnMigration: sayMigration})
			if err != nil {
				return err
			}
			db.Close()
			rep, err := pg.Distribute(cmd.Context(), url, []string{g.tenant})
			if err != nil {
				return err
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(rep)
			}
			fmt.Printf("citus %s, %d workers\ndistributed by repository_id: %d tables %v\nreference: %d tables %v\nalready done: %d tables\ntenant roles: %v\n",
				rep.Citus, rep.Workers, len(rep.Distributed), rep.Distributed, len(rep.Reference), rep.Reference, rep.Already, rep.Roles)
			return nil
		},
	}
}
