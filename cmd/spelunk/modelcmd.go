package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
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
	cmd.AddCommand(pack)
	return cmd
}
