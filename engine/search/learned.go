package search

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// The learned fusion (issue 35, item c): for a question, a linear model over
// each candidate's evidence replaces the hand-set RRF weights. It was trained by
// internal/train/ranker on commit messages of public repositories outside the
// dev set, each answered by the files and definitions the commit changed
// (train/README.md, "The ranker"). Its inputs are the channels' ranks and
// scores plus how much lexical evidence the question has at all, so that it
// can lean on the dense channel when the words of the question are not in the
// code. Every term of its score is kept for explain.

// Fusion names how a search combines its channels.
const (
	FusionRRF     = "rrf"     // weighted reciprocal rank fusion (DefaultWeights)
	FusionLearned = "learned" // the built-in ranker, for questions; RRF otherwise
)

// learnedInputs are what the ranker knows of a candidate (the first nine) and
// of the question (the last).
var learnedInputs = []string{
	"dense_rr", "lexical_rr", "literal_rr", "symbol_rr", "graph_rr", // 20/(20+rank); 0 when absent
	"dense_cos",     // the cosine; 0 when absent
	"dense_gap",     // the query's best cosine minus this one; 1 when absent
	"lexical_rel",   // BM25 over the query's best BM25; 0 when absent
	"channels",      // how many channels returned it, over 5
	"query_lexical", // how much of the question the best lexical hit matched, in [0, 1]
}

// LearnedFeatures are the ranker's features in the order of its weights: the
// inputs, then each candidate input times (1 - query_lexical), so that one
// linear model weighs the evidence one way when the question's words are the
// code's and another when they are not. A model file naming other features
// is refused (the searches fall back to RRF).
var LearnedFeatures = expandedNames()

func expandedNames() []string {
	out := slices.Clone(learnedInputs)
	for _, n := range learnedInputs[:len(learnedInputs)-1] {
		out = append(out, n+"_weaklex")
	}
	return out
}

// ExpandLearned turns the inputs (in learnedInputs' order) into the features.
func ExpandLearned(in []float64) []float64 {
	n := len(learnedInputs)
	weak := 1 - in[n-1]
	out := make([]float64, 0, len(LearnedFeatures))
	out = append(out, in[:n]...)
	for _, v := range in[:n-1] {
		out = append(out, v*weak)
	}
	return out
}

// LearnedInputCount is how many inputs ExpandLearned takes.
func LearnedInputCount() int { return len(learnedInputs) }

// learnedRRK is the rank constant of the *_rr features (the default RRF k).
const learnedRRK = 20

// learnedScale maps the model's score into RRF's range (below the largest RRF
// sum, ~0.155), so the exact-name, literal and mention boosts keep their order
// over it as they do over RRF.
const learnedScale = 0.15

// RankModel is a trained linear ranker.
type RankModel struct {
	Name     string    `json:"name"`
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// Trained says on what, for `spelunk model` and the docs.
	Trained string `json:"trained,omitempty"`
	// Default: questions are fused by this model unless Options.Fusion says
	// rrf. Set only for a model that beat RRF on the dev set's tune half
	// (train/README.md, "The ranker"); otherwise --fusion learned asks for it.
	Default bool `json:"default"`
}

//go:embed rankmodel.json
var rankModelJSON []byte

var (
	rankModelOnce sync.Once
	rankModel     *RankModel
	rankModelErr  error
)

// BuiltinRanker is the embedded ranker, or an error when its file does not
// match this build's features (then questions use RRF).
func BuiltinRanker() (*RankModel, error) {
	rankModelOnce.Do(func() { rankModel, rankModelErr = ParseRankModel(rankModelJSON) })
	return rankModel, rankModelErr
}

// ParseRankModel reads a ranker file and checks it against LearnedFeatures.
func ParseRankModel(data []byte) (*RankModel, error) {
	var m RankModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("ranker model: %w", err)
	}
	if !slices.Equal(m.Features, LearnedFeatures) || len(m.Weights) != len(m.Features) {
		return nil, fmt.Errorf("ranker model %q: features %v do not match this build's %v", m.Name, m.Features, LearnedFeatures)
	}
	return &m, nil
}

// queryEvidence is what the channels learned about the query as a whole,
// written by the channel that knows it (one writer each) before fusion.
type queryEvidence struct {
	// lexicalIDF is the idf of each query term the repository holds (and that
	// is not too common to score); lexicalMissing counts terms it does not hold.
	lexicalIDF     map[string]float64
	lexicalMissing int
	lexicalTerms   int
	docs           int // chunks in the repository, for the idf of a missing term
	// expanded lists, per symbol the lexical channel scored, the learned
	// expansions (expand.go) it matched.
	expanded map[int64][]Expansion
	// expandedTerms are the learned expansions the lexical channel scored
	// with (the repository holds the term and lacks the word).
	expandedTerms []Expansion
}

// addExpanded records that symbol id matched the learned expansion e.
func (e *queryEvidence) addExpanded(id int64, x Expansion) {
	if e.expanded == nil {
		e.expanded = map[int64][]Expansion{}
	}
	e.expanded[id] = append(e.expanded[id], x)
}

// lexicalStrength is how much of the question the best lexical hit matched:
// its BM25 over the idf mass of every query term (a term the code never uses
// counts at the largest idf), in [0, 1]. Near 0 the words of the question are
// not the words of the code.
func (e *queryEvidence) lexicalStrength(best float64) float64 {
	if e == nil || e.lexicalTerms == 0 || best <= 0 {
		return 0
	}
	var mass float64
	for _, idf := range e.lexicalIDF {
		mass += idf
	}
	mass += float64(e.lexicalMissing) * math.Log(1+(float64(e.docs)+0.5)/0.5)
	if mass <= 0 {
		return 0
	}
	return min(1, best/mass)
}

// LearnedTerm is one input of a learned score: its value and what it added.
type LearnedTerm struct {
	Feature      string  `json:"feature"`
	Value        float64 `json:"value"`
	Contribution float64 `json:"contribution"` // weight × value
}

// Learned says how the ranker scored a result.
type Learned struct {
	Model string        `json:"model"`
	Score float64       `json:"score"` // bias + sum of contributions; Fused = 0.15 × sigmoid(Score)
	Terms []LearnedTerm `json:"terms"`
}

// learnedFeatures computes every candidate's inputs from the fused lists.
func learnedFeatures(cands []candidate, lists map[Channel][]hit, strength float64) [][]float64 {
	bestCos, bestLex := topScore(lists[Dense]), topScore(lists[Lexical])
	out := make([][]float64, len(cands))
	for i, c := range cands {
		f := make([]float64, len(learnedInputs))
		for j, ch := range AllChannels {
			if cs, ok := c.channels[ch]; ok {
				f[j] = learnedRRK / (learnedRRK + float64(cs.Rank))
			}
		}
		f[6] = 1
		if cs, ok := c.channels[Dense]; ok {
			f[5], f[6] = cs.Score, max(0, bestCos-cs.Score)
		}
		if cs, ok := c.channels[Lexical]; ok && bestLex > 0 {
			f[7] = cs.Score / bestLex
		}
		f[8] = float64(len(c.channels)) / float64(len(AllChannels))
		f[9] = strength
		f = ExpandLearned(f)
		out[i] = f
	}
	return out
}

func topScore(hits []hit) float64 {
	if len(hits) == 0 {
		return 0
	}
	return hits[0].score
}

// applyLearned replaces each candidate's fused RRF score by the model's and
// re-sorts them, keeping each one's terms for explain; a channel's
// contribution becomes what its own features added to the model's score.
func applyLearned(m *RankModel, cands []candidate, feats [][]float64) {
	for i := range cands {
		l := &Learned{Model: m.Name, Score: m.Bias, Terms: make([]LearnedTerm, len(m.Features))}
		for j, v := range feats[i] {
			t := LearnedTerm{Feature: m.Features[j], Value: v, Contribution: m.Weights[j] * v}
			l.Terms[j] = t
			l.Score += t.Contribution
		}
		cands[i].fused = learnedScale / (1 + math.Exp(-l.Score))
		cands[i].learned = l
		cands[i].channels = channelShares(cands[i].channels, l.Terms)
	}
	sortCandidates(cands)
}

// channelShares copies a candidate's channel scores with each Contribution set
// to the sum of the model's terms on that channel's features (dense_*,
// lexical_*, ...); the query-level terms belong to no channel.
func channelShares(chans map[Channel]ChannelScore, terms []LearnedTerm) map[Channel]ChannelScore {
	out := make(map[Channel]ChannelScore, len(chans))
	for c, cs := range chans {
		cs.Contribution = 0
		for _, t := range terms {
			if strings.HasPrefix(t.Feature, string(c)+"_") {
				cs.Contribution += t.Contribution
			}
		}
		out[c] = cs
	}
	return out
}

// useLearned says whether a search fuses with the ranker m: a question (not
// an identifier) over more than one channel, no hand-set weights or k, and
// either asked for or m the default.
func useLearned(m *RankModel, kind QueryKind, opts Options, weights map[Channel]float64) bool {
	if m == nil || kind == Identifier || len(opts.Weights) > 0 || opts.K > 0 || len(weights) < 2 {
		return false
	}
	return opts.Fusion == FusionLearned || opts.Fusion == "" && m.Default
}

// fuseLearned fuses a question with the built-in ranker (or only keeps its
// inputs, with Options.Features) and says which fusion ranked cands.
func (s *Searcher) fuseLearned(cands []candidate, lists map[Channel][]hit, p plan, opts Options, weights map[Channel]float64) string {
	m, _ := BuiltinRanker() // a mismatched file is refused by a test; RRF then
	learn := opts.Fusion != FusionRRF && useLearned(m, p.kind, opts, weights)
	if !learn && (!opts.Features || p.kind == Identifier) {
		return FusionRRF
	}
	feats := learnedFeatures(cands, lists, p.evidence.lexicalStrength(topScore(lists[Lexical])))
	if !learn {
		for i := range cands {
			l := &Learned{Terms: make([]LearnedTerm, len(feats[i]))}
			for j, v := range feats[i] {
				l.Terms[j] = LearnedTerm{Feature: LearnedFeatures[j], Value: v}
			}
			cands[i].learned = l
		}
		return FusionRRF
	}
	applyLearned(m, cands, feats)
	return FusionLearned + ":" + m.Name
}

// DefaultFusion is how a question is fused when Options.Fusion is "".
func DefaultFusion() string {
	if m, err := BuiltinRanker(); err == nil && m.Default {
		return FusionLearned
	}
	return FusionRRF
}
