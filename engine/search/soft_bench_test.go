package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// BenchmarkSoftRerank measures the dense channel's soft term rescoring of one
// pool (100 candidates of 40 words drawn from 400, as names, signatures and doc
// comments share their words) with the installed GloVe vectors.
func BenchmarkSoftRerank(b *testing.B) {
	emb, err := embed.FromConfig(embed.Config{Provider: "glove"})
	if err != nil {
		b.Skipf("GloVe is not installed (make setup): %v", err)
	}
	wv := emb.(wordVectors)
	vocab := strings.Fields(`read write open close parse format encode decode buffer stream
		request response header body cookie session token user account password hash key value
		cache store load save delete update insert query result error panic retry timeout deadline
		context cancel signal channel queue worker pool thread lock mutex wait group start stop run
		file path directory name size time date duration interval second minute hour day week month
		number integer float string byte slice array map list set tree node graph edge vertex root
		parent child sibling next previous first last index offset length count total sum average
		print log debug info warn trace level message text line word character rune unicode ascii
		http server client connection socket address port host network protocol tls certificate
		compress decompress archive zip tar gzip json xml yaml csv html template render view model`)
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]hit, 100)
	texts := map[int64]string{}
	for i := range pool {
		words := make([]string, 40)
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		pool[i] = hit{id: int64(i), score: 1 - float64(i)/200}
		texts[int64(i)] = fmt.Sprintf("%sHandler %s", words[0], strings.Join(words, " "))
	}
	p := analyze("how does the server close an idle connection after a timeout", "")
	b.ResetTimer()
	for range b.N {
		softRerank(wv, p, pool, texts)
	}
}
