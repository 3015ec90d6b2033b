// Package doctor checks that everything spelunk needs is present and says how to fix
// what is not.
package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Warn   bool   `json:"warn,omitempty"` // works, but degraded
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Options say what to check.
type Options struct {
	// DatabaseURL is the server to check; "" means the embedded cluster, which the
	// check starts when it is not running.
	DatabaseURL string
	// Embedder reports the embedder spelunk would use: its name and, when it is a
	// fallback, why.
	Embedder func() (name string, fallbackReason string, err error)
}

// Run performs every check. It never stops at the first failure: a person wants the
// whole picture. Details and fixes quote errors, which may quote the URL: every
// password in them is masked.
func Run(ctx context.Context, opts Options) []Check {
	checks := run(ctx, opts)
	for i := range checks {
		checks[i].Detail = pg.RedactText(checks[i].Detail)
		checks[i].Fix = pg.RedactText(checks[i].Fix)
	}
	return checks
}

func run(ctx context.Context, opts Options) []Check {
	var checks []Check
	add := func(c Check) { checks = append(checks, c) }

	if out, err := exec.CommandContext(ctx, "git", "--version").Output(); err != nil {
		add(Check{Name: "git", Detail: "git not found", Fix: "install git (apt-get install git)"})
	} else {
		add(Check{Name: "git", OK: true, Detail: strings.TrimSpace(string(out))})
	}

	url := opts.DatabaseURL
	if url == "" {
		bin, err := pg.FindBinDir()
		if err != nil {
			add(Check{Name: "postgres binaries", Detail: err.Error(), Fix: "make setup"})
			return withEmbedder(checks, opts)
		}
		c, err := pg.NewCluster(pg.DefaultDataDir())
		if err != nil {
			add(Check{Name: "postgres binaries", Detail: err.Error(), Fix: "make setup"})
			return withEmbedder(checks, opts)
		}
		v, _ := c.ServerVersion(ctx)
		add(Check{Name: "postgres binaries", OK: true, Detail: v + " in " + bin})
		if err := c.Start(ctx); err != nil {
			add(Check{Name: "embedded cluster", Detail: err.Error(), Fix: "see the server log named above; `spelunk db stop` then retry, or remove " + c.DataDir + " to start afresh"})
			return withEmbedder(checks, opts)
		}
		if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
			add(Check{Name: "embedded cluster", Detail: err.Error()})
			return withEmbedder(checks, opts)
		}
		add(Check{Name: "embedded cluster", OK: true, Detail: "running, data " + c.DataDir + ", socket " + c.SocketPath()})
		url = c.URL("spelunk")
	}

	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		add(Check{Name: "database", Detail: err.Error(), Fix: "check --db / SPELUNK_DATABASE_URL, or `spelunk db start`"})
		return withEmbedder(checks, opts)
	}
	defer conn.Close(context.Background())
	var version string
	_ = conn.QueryRow(ctx, `SHOW server_version`).Scan(&version)
	if err := pg.CheckServer(ctx, conn); err != nil {
		add(Check{Name: "database", Detail: err.Error(), Fix: fmt.Sprintf("use PostgreSQL %d or newer", pg.MinServerVersion)})
	} else {
		add(Check{Name: "database", OK: true, Detail: "PostgreSQL " + version})
	}
	add(extensionCheck(ctx, conn, "vector", "pgvector", "0.7",
		"make setup (installs or builds pgvector), or apt-get install postgresql-NN-pgvector"))
	add(extensionCheck(ctx, conn, "pg_trgm", "pg_trgm", "",
		"install postgresql-contrib"))

	st, err := pg.ReadSchemaState(ctx, conn)
	switch {
	case err != nil:
		add(Check{Name: "migrations", Detail: err.Error()})
	case st.Applied > st.Known:
		add(Check{Name: "migrations", Detail: fmt.Sprintf("database at schema %d, this spelunk knows %d", st.Applied, st.Known), Fix: "upgrade spelunk"})
	case st.Pending() > 0:
		add(Check{Name: "migrations", OK: true, Warn: true, Detail: fmt.Sprintf("schema %d of %d: %d pending, applied on the next command", st.Applied, st.Known, st.Pending())})
	default:
		add(Check{Name: "migrations", OK: true, Detail: fmt.Sprintf("schema %d, up to date", st.Applied)})
		var leakproof bool
		err := conn.QueryRow(ctx, `SELECT proleakproof FROM pg_proc WHERE proname = 'ts_match_vq' LIMIT 1`).Scan(&leakproof)
		if err == nil && !leakproof {
			add(Check{Name: "index use under RLS", OK: true, Warn: true,
				Detail: "full-text and trigram operators are not LEAKPROOF here, so row-level security keeps their indexes unused (slower lexical search)",
				Fix:    "run the migrations once as a superuser"})
		}
	}
	return withEmbedder(checks, opts)
}

func withEmbedder(checks []Check, opts Options) []Check {
	if opts.Embedder == nil {
		return checks
	}
	name, fallback, err := opts.Embedder()
	switch {
	case err != nil:
		return append(checks, Check{Name: "embedder", Detail: err.Error(), Fix: "check --embedder / SPELUNK_EMBEDDER settings"})
	case fallback != "":
		return append(checks, Check{Name: "embedder", OK: true, Warn: true, Detail: name + ": " + fallback, Fix: "make setup-glove (fetches the GloVe word vectors)"})
	default:
		return append(checks, Check{Name: "embedder", OK: true, Detail: name})
	}
}

func extensionCheck(ctx context.Context, conn *pgx.Conn, ext, label, minVersion, fix string) Check {
	var avail, installed *string
	err := conn.QueryRow(ctx, `SELECT default_version, installed_version FROM pg_available_extensions WHERE name = $1`, ext).Scan(&avail, &installed)
	if err != nil || avail == nil {
		return Check{Name: label, Detail: label + " is not installed on the server", Fix: fix}
	}
	v := *avail
	if installed != nil {
		v = *installed
	}
	if minVersion != "" && versionLess(v, minVersion) {
		return Check{Name: label, Detail: fmt.Sprintf("%s %s is older than %s", label, v, minVersion), Fix: fix}
	}
	state := "available"
	if installed != nil {
		state = "installed"
	}
	return Check{Name: label, OK: true, Detail: fmt.Sprintf("%s %s %s", label, v, state)}
}

// versionLess compares dotted numeric versions ("0.8.0" < "0.10").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			fmt.Sscan(as[i], &x)
		}
		if i < len(bs) {
			fmt.Sscan(bs[i], &y)
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if !c.OK {
			return true
		}
	}
	return false
}
