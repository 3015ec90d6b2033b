package main

import (
	"cmp"
	"slices"
)

// inflectionWeight is the weight of an inflection (batched → batch): the
// same word, so nearly a word of the question's own.
const inflectionWeight = 0.8

// inflections finds, for each word of the texts said in at least minRepos
// repositories, the code tokens of the same crude stem (batched → batch,
// polled → poll, notifying → notify) used in at least minRepos repositories'
// code, most widely used first, at most top. The lexical channel matches
// whole tokens only, so these are the translations a question needs most
// often; sameWord keeps them out of the learned ones.
func inflections(c *corpus, minRepos, top int) map[string][]Translation {
	wordRepos, tokRepos := map[int32]int{}, map[int32]int{}
	for _, name := range c.order {
		words := map[int32]bool{}
		for _, p := range c.repos[name] {
			for _, w := range p.words {
				words[w] = true
			}
		}
		for w := range words {
			wordRepos[w]++
		}
		for t := range c.code[name] {
			tokRepos[t]++
		}
	}
	byStem := map[string][]int32{}
	for t, n := range tokRepos {
		if n >= minRepos {
			st := stem(c.names[t])
			byStem[st] = append(byStem[st], t)
		}
	}
	out := map[string][]Translation{}
	for w, n := range wordRepos {
		if n < minRepos {
			continue
		}
		word := c.names[w]
		var ts []Translation
		for _, t := range byStem[stem(word)] {
			if t != w {
				ts = append(ts, Translation{Token: c.names[t], Weight: inflectionWeight, Repos: tokRepos[t]})
			}
		}
		slices.SortFunc(ts, func(a, b Translation) int {
			return cmp.Or(cmp.Compare(b.Repos, a.Repos), cmp.Compare(a.Token, b.Token))
		})
		if len(ts) > 0 {
			out[word] = ts[:min(len(ts), top)]
		}
	}
	return out
}

// merge puts each word's inflections before its learned translations, top
// in all.
func merge(infl, learned map[string][]Translation, top int) map[string][]Translation {
	out := map[string][]Translation{}
	for w, ts := range learned {
		out[w] = ts
	}
	for w, ts := range infl {
		out[w] = append(slices.Clone(ts), out[w]...)
		out[w] = out[w][:min(len(out[w]), top)]
	}
	return out
}
