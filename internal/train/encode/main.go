// Command encode turns mined pairs into the token ids the trainer reads, with
// exactly the tokenisation spelunk's embedders use at run time (embed.Tokenize,
// stop words dropped), so a model is trained on the tokens it will see.
//
//	go run ./internal/train/encode -vocab DIR/vocab.txt -pairs pairs.jsonl -out PREFIX
//
// Writes PREFIX.q.u32 / PREFIX.qoff.u64 (query token ids and row offsets),
// PREFIX.c.u32 / PREFIX.coff.u64 (code side), PREFIX.kind.u8 and
// PREFIX.repo.u32 (pair kind and repository ids), PREFIX.line.u32 (each pair's
// 0-based line in the pairs file), PREFIX.meta.json (names of
// kinds and repositories, counts). Tokens outside the vocabulary are dropped:
// the run-time embedder hashes them into separate dimensions no training moves.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// maxCodeBytes matches the body cut of the index's embedding text.
const maxCodeBytes = 1500

type pair struct {
	Kind, Query, Code, Repo, Path, Symbol string
}

type sink struct {
	ids  []uint32
	offs []uint64
}

func (s *sink) add(ids []uint32) {
	s.ids = append(s.ids, ids...)
	s.offs = append(s.offs, uint64(len(s.ids)))
}

func main() {
	vocabPath := flag.String("vocab", "", "vocab.txt of the model")
	pairsPath := flag.String("pairs", "", "mined pairs (JSON lines)")
	out := flag.String("out", "", "output prefix")
	flag.Parse()
	if err := run(*vocabPath, *pairsPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "encode:", err)
		os.Exit(1)
	}
}

func readVocab(path string) (map[string]uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open vocab: %w", err)
	}
	defer f.Close()
	ids := map[string]uint32{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, dup := ids[sc.Text()]; !dup {
			ids[sc.Text()] = uint32(len(ids))
		}
	}
	return ids, sc.Err()
}

func encodeText(vocab map[string]uint32, text string, buf []uint32) []uint32 {
	buf = buf[:0]
	for _, t := range embed.Tokenize(text) {
		if embed.IsStopWord(t) {
			continue
		}
		if id, ok := vocab[t]; ok {
			buf = append(buf, id)
		}
	}
	return buf
}

func run(vocabPath, pairsPath, out string) error {
	vocab, err := readVocab(vocabPath)
	if err != nil {
		return err
	}
	f, err := os.Open(pairsPath)
	if err != nil {
		return fmt.Errorf("open pairs: %w", err)
	}
	defer f.Close()
	var q, c sink
	var kinds []byte
	var repos, lines []uint32
	kindID, repoID := map[string]int{}, map[string]int{}
	var kindNames, repoNames []string
	intern := func(m map[string]int, names *[]string, s string) int {
		if id, ok := m[s]; ok {
			return id
		}
		m[s] = len(*names)
		*names = append(*names, s)
		return m[s]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var qb, cb []uint32
	read, kept := 0, 0
	for sc.Scan() {
		read++
		var p pair
		if json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		code := p.Code
		if len(code) > maxCodeBytes {
			code = code[:maxCodeBytes]
		}
		qb = encodeText(vocab, p.Query, qb)
		cb = encodeText(vocab, p.Symbol+"\n"+p.Path+"\n"+code, cb)
		if len(qb) < 2 || len(cb) < 3 {
			continue
		}
		q.add(qb)
		c.add(cb)
		kinds = append(kinds, byte(intern(kindID, &kindNames, p.Kind)))
		repos = append(repos, uint32(intern(repoID, &repoNames, p.Repo)))
		lines = append(lines, uint32(read-1))
		kept++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read pairs: %w", err)
	}
	for name, data := range map[string]any{
		".q.u32": q.ids, ".qoff.u64": q.offs, ".c.u32": c.ids, ".coff.u64": c.offs,
		".kind.u8": kinds, ".repo.u32": repos, ".line.u32": lines,
	} {
		if err := writeLE(out+name, data); err != nil {
			return err
		}
	}
	meta, _ := json.MarshalIndent(map[string]any{
		"pairs": kept, "read": read, "kinds": kindNames, "repos": repoNames, "vocab": len(vocab),
	}, "", " ")
	fmt.Fprintf(os.Stderr, "encode: %d of %d pairs kept\n", kept, read)
	return os.WriteFile(out+".meta.json", meta, 0o644)
}

func writeLE(path string, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	if err := binary.Write(w, binary.LittleEndian, data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
