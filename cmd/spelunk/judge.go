package main

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// judgeFlags choose the contradiction judge of every memory store the command
// opens (the CLI's, spelunk mcp's and the UI's). The built-in judge is the
// default; --judge openai asks a chat model, falling back to the built-in judge on
// any failure. The API key comes only from the environment
// (SPELUNK_JUDGE_API_KEY, or OPENAI_API_KEY for api.openai.com), never from a flag
// that shows in `ps`.
type judgeFlags struct {
	kind    string
	url     string
	model   string
	timeout time.Duration
	judge   memory.Judge // built by check; nil = the store's default
}

// judgeKinds are the values of --judge.
var judgeKinds = []string{"builtin", "openai"}

func (f *judgeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.kind, "judge", envOr("SPELUNK_JUDGE", "builtin"), "memory contradiction judge: builtin, or openai (a chat model; the built-in judge answers when it fails)")
	fs.StringVar(&f.url, "judge-url", os.Getenv("SPELUNK_JUDGE_URL"), "base URL of an OpenAI-compatible /v1/chat/completions server for --judge openai")
	fs.StringVar(&f.model, "judge-model", os.Getenv("SPELUNK_JUDGE_MODEL"), "chat model name for --judge openai")
	fs.DurationVar(&f.timeout, "judge-timeout", memory.DefaultJudgeTimeout, "longest wait for one answer of the model judge before the built-in judge answers")
}

// check refuses an unknown judge or an incomplete model judge as a usage error,
// before any command connects to the database, and builds the judge (no request).
func (f *judgeFlags) check() error {
	kind := strings.ToLower(strings.TrimSpace(f.kind))
	if err := oneOf("judge", kind, judgeKinds...); err != nil {
		return err
	}
	if kind != "openai" {
		if f.url != "" || f.model != "" {
			return usagef("--judge-url and --judge-model need --judge openai (or $SPELUNK_JUDGE=openai)")
		}
		return nil
	}
	if f.url == "" || f.model == "" {
		return usagef("--judge openai needs --judge-url and --judge-model (or $SPELUNK_JUDGE_URL and $SPELUNK_JUDGE_MODEL)")
	}
	if f.timeout <= 0 {
		return usagef("--judge-timeout must be positive (got %s)", f.timeout)
	}
	j, err := memory.NewOpenAIJudge(memory.OpenAIJudgeConfig{URL: f.url, Model: f.model, Timeout: f.timeout})
	if err != nil {
		return usageError{err}
	}
	f.judge = j
	return nil
}

// memOptions are the options of every memory store a command opens: the
// embedder and the configured judge.
func (g *globals) memOptions(emb memory.Embedder) memory.Options {
	return memory.Options{Embedder: emb, Judge: g.judge.judge}
}
