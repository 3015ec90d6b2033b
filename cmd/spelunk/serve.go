package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/webhook"
)

// secretEnv holds the webhook secret. There is no flag for the value itself: a
// command line shows in ps and in shell history.
const secretEnv = webhook.SecretEnv

// newServeCmd is `spelunk serve --webhook ADDR`: the team server that keeps the
// shared index of one repository current from push webhooks.
func newServeCmd(g *globals) *cobra.Command {
	var addr, secretFile string
	var catchUp bool
	var jobTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "serve --webhook ADDR [--repo DIR] [--webhook-secret-file FILE]",
		Short: "Keep a shared index current from GitHub/GitLab push webhooks",
		Long: "Serve POST /webhook on ADDR for GitHub and GitLab push events. DIR (--repo) is the server's own clone of\n" +
			"the shared repository: origin is the remote, and the branch checked out is the one indexed. A push to that\n" +
			"branch is verified (GitHub: X-Hub-Signature-256, GitLab: X-Gitlab-Token), queued as a durable job in\n" +
			"PostgreSQL (river, schema river), fetched into DIR, checked out there and indexed incrementally; pushes of\n" +
			"other branches and tags are logged and ignored. Jobs retry with backoff and survive restarts.\n" +
			"The secret comes from $" + secretEnv + " or --webhook-secret-file, never from the command line.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr == "" {
				return usagef("nothing to serve: give --webhook ADDR (e.g. --webhook :8080)")
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usagef("--webhook %q: want HOST:PORT or :PORT (%v)", addr, err)
			}
			if jobTimeout <= 0 {
				return usagef("--job-timeout must be positive (got %s)", jobTimeout)
			}
			secret, err := webhookSecret(secretFile)
			if err != nil {
				return err
			}
			return serveWebhook(cmd.Context(), g, addr, secret, webhook.Config{JobTimeout: jobTimeout, CatchUp: catchUp})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "webhook", "", "serve push webhooks on this address (HOST:PORT, :PORT for every interface)")
	f.StringVar(&secretFile, "webhook-secret-file", "", "read the webhook secret from this file (default $"+secretEnv+")")
	f.BoolVar(&catchUp, "catch-up", true, "index the branch once at start, for pushes made while no server listened")
	f.DurationVar(&jobTimeout, "job-timeout", webhook.DefaultJobTimeout, "longest one index run may take")
	return cmd
}

// webhookSecret reads the secret from the file, else from the environment.
// Giving both is refused: which one wins would be a guess.
func webhookSecret(file string) ([]byte, error) {
	env := os.Getenv(secretEnv)
	switch {
	case file != "" && env != "":
		return nil, usagef("the webhook secret is given twice ($%s and --webhook-secret-file): unset one", secretEnv)
	case file == "" && env == "":
		return nil, usagef("no webhook secret: set $%s or give --webhook-secret-file FILE (the same secret as in the GitHub/GitLab hook)", secretEnv)
	case env != "":
		// Read once and removed, so git and its credential helpers never inherit it.
		os.Unsetenv(secretEnv)
		return []byte(env), nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("webhook secret file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(os.Stderr, "spelunk serve: warning: %s is readable by other users (mode %s): chmod 600 it\n", file, fi.Mode().Perm())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("webhook secret file: %w", err)
	}
	// An editor's or echo's final newline is not part of the secret.
	secret := strings.TrimRight(string(b), "\r\n")
	if secret == "" {
		return nil, fmt.Errorf("webhook secret file %s is empty", file)
	}
	return []byte(secret), nil
}

func serveWebhook(ctx context.Context, g *globals, addr string, secret []byte, cfg webhook.Config) error {
	root, emb, db, err := openForIndexing(ctx, g)
	if err != nil {
		return err
	}
	defer db.Close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg.DB, cfg.Embedder, cfg.Dir, cfg.Secret, cfg.Logger = db, emb, root, secret, logger
	svc, err := webhook.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("webhook: listen on %s: %w", addr, err)
	}
	hs := &http.Server{
		Handler:           svc.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// Jobs must outlive the signal: shutdown below stops them in order.
	if err := svc.Start(context.WithoutCancel(ctx)); err != nil {
		ln.Close()
		return err
	}
	logger.Info("webhook serving", slog.String("url", "http://"+ln.Addr().String()+webhook.Path),
		slog.String("repository", svc.Root()), slog.String("branch", svc.Branch()),
		slog.String("tenant", db.Tenant), slog.String("queue", svc.Queue()))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
		logger.Info("webhook stopping: no new deliveries; waiting for the running job")
	}
	return shutdown(hs, svc, serveErr)
}

// shutdown stops taking deliveries, lets in-flight ones answer, then gives the
// running job time to finish before cancelling it (it is retried on the next
// start, and the index run resumes where it stopped).
func shutdown(hs *http.Server, svc *webhook.Service, serveErr error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		serveErr = errors.Join(serveErr, fmt.Errorf("webhook: shut the HTTP server down: %w", err))
	}
	jobs, cancelJobs := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelJobs()
	if err := svc.Stop(jobs); err != nil {
		serveErr = errors.Join(serveErr, err)
	}
	return serveErr
}
