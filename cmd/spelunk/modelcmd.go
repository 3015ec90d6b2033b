package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/learn"
)

// maxShippedModelBytes is the budget of the code model the binary carries.
const maxShippedModelBytes = 32 << 20

func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Manage the built-in code embedding model",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pack := &cobra.Command{
		Use:   "pack DIR OUT",
		Short: "Quantise a trained static model (the trainer's directory) into the file spelunk embeds",
		Long: "DIR holds vocab.txt (one token per line, as spelunk tokenises), vectors.f32 (little-endian\n" +
			"float32 rows, one per token) and meta.json (name, dims, teacher, source, hash_dims,\n" +
			"unknown_weight). Each row becomes int8 with one scale; the quantisation error is printed.\n" +
			"Write OUT as engine/embed/model/spelunk-code.bin to ship it in the binary, or point\n" +
			"SPELUNK_CODE_MODEL at it to try it without rebuilding.",
		Args: rangeArgs(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := embed.PackStatic(args[0], args[1])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s: %s, %d tokens × %d dims, %.1f MB\n", args[1], rep.Name, rep.Words, rep.Dims, float64(rep.Bytes)/(1<<20))
			fmt.Fprintf(w, "int8 vs float32 rows: mean cosine %.6f, min %.6f, max weight (norm) error %.3f%%; %d zero rows\n",
				rep.MeanCosine, rep.MinCosine, 100*rep.MaxNormError, rep.ZeroRows)
			if rep.Bytes > maxShippedModelBytes {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %d bytes is over the %d budget of the built-in model\n", rep.Bytes, maxShippedModelBytes)
			}
			return nil
		},
	}
	cmd.AddCommand(pack, newModelLearnCmd())
	return cmd
}

func newModelLearnCmd() *cobra.Command {
	var out, rev string
	var epochs int
	cmd := &cobra.Command{
		Use:   "learn [DIR]",
		Short: "Fine-tune the code model on a repository's own docs, tests and history",
		Long: "Mines DIR's pairs of human text and code (doc comments, inline comments, test names,\n" +
			"README sections, commit messages with the definitions they changed), fine-tunes the rows\n" +
			"of the tokens they use (pure Go, seconds) and writes a model file to OUT. Its vectors carry\n" +
			"their own model name. Point SPELUNK_CODE_MODEL at OUT to index and search with it.\n" +
			"--rev learns from the tree and history as of a commit (for a time split). The base is the\n" +
			"built-in model, or the file SPELUNK_CODE_MODEL names.",
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			base, err := baseCodeModel()
			if err != nil {
				return err
			}
			o := learn.Options{Rev: rev, Workers: 2}
			o.Tune.Epochs = epochs
			if isatty.IsTerminal(os.Stderr.Fd()) {
				o.Progress = func(stage string, done, total int) {
					line := stage
					if done > 0 {
						line = fmt.Sprintf("%s  %d", stage, done)
					}
					statusLine(clipColumns(line, terminalWidth(os.Stderr)-1))
				}
			}
			res, err := learn.Learn(cmd.Context(), dir, base, o)
			if o.Progress != nil {
				statusLine("") // the results go on lines of their own
			}
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, res.Model, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s: %s, %d rows changed, trained on %d of %d pairs mined (%s), %.1f s (mining %.1f s)\n",
				out, res.Name, res.Rows, res.Trained, res.Trained+res.Heldout, pairKinds(res.Pairs), res.Took.Seconds(), res.Mining.Seconds())
			if res.Heldout == 0 {
				fmt.Fprintln(w, "no pairs held out: too few to score the learned model")
				return nil
			}
			fmt.Fprintf(w, "held-out pairs (%d): MRR %.3f with %s, %.3f learned\n", res.Heldout, res.Before, base.Name(), res.After)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "spelunk-learned.bin", "the model file to write")
	cmd.Flags().StringVar(&rev, "rev", "", "learn from the repository as of this commit (default: the working tree and HEAD)")
	cmd.Flags().IntVar(&epochs, "epochs", 0, "passes over the pairs (default 3)")
	return cmd
}

// pairKinds lists mined pairs by kind, most first: "commit 357, readme 35".
func pairKinds(byKind map[string]int) string {
	kinds := slices.Collect(maps.Keys(byKind))
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(byKind[b]-byKind[a], strings.Compare(a, b)) })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, byKind[k])
	}
	return strings.Join(parts, ", ")
}

// baseCodeModel is the model learn starts from: the file SPELUNK_CODE_MODEL
// names, else the built-in one.
func baseCodeModel() (*embed.Static, error) {
	if p := os.Getenv("SPELUNK_CODE_MODEL"); p != "" {
		return embed.LoadStaticFile(p)
	}
	return embed.LoadCode()
}
