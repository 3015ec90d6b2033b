package contradict

import (
	"regexp"
	"strings"
)

// An acronym on one side and the words it abbreviates on the other ("PR" vs
// "pull request", "CI" vs "continuous integration") are one subject. The
// statements are compared as if the acronym were spelled out; the expansion is
// read from the other statement, so no list of acronyms is needed.

// maxAcronym bounds the letters of an acronym that is spelled out.
const maxAcronym = 4

// spellOut returns s re-analysed with each acronym that o spells out (and does
// not use itself) replaced by o's words, and whether any was.
func spellOut(s, o statement) (statement, bool) {
	text, changed := s.text, false
	for _, t := range s.toks {
		letters, plural := acronymLetters(t)
		if letters == "" || o.words[t.key] {
			continue
		}
		run := initialsRun(o.toks, letters)
		if run == "" {
			continue
		}
		if plural {
			run += "s"
		}
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(t.surface) + `\b`)
		text, changed = re.ReplaceAllLiteralString(text, run), true
	}
	if !changed {
		return s, false
	}
	return analyze(Statement{Text: text, Event: s.event}), true
}

// acronymLetters returns the lower-case letters of an acronym token ("PR",
// "PRs"): two to maxAcronym capitals, with an optional plural s.
func acronymLetters(t token) (letters string, plural bool) {
	w := t.surface
	if t.kind != tWord || len(w) < 2 {
		return "", false
	}
	if strings.HasSuffix(w, "s") {
		w, plural = w[:len(w)-1], true
	}
	if len(w) < 2 || len(w) > maxAcronym || strings.ToUpper(w) != w || strings.ToLower(w) == w {
		return "", false
	}
	return strings.ToLower(w), plural
}

// initialsRun finds consecutive plain words in toks whose initials spell letters
// and returns them singular as written ("pull request" for "pr").
func initialsRun(toks []token, letters string) string {
	n := len(letters)
	for i := 0; i+n <= len(toks); i++ {
		ok := true
		for k := 0; k < n && ok; k++ {
			t := toks[i+k]
			ok = t.kind == tWord && !t.stop && strings.ToLower(t.surface[:1]) == letters[k:k+1] && strings.ToLower(t.surface) == t.surface
		}
		if ok {
			ws := make([]string, n)
			for k := range ws {
				ws[k] = toks[i+k].surface
			}
			ws[n-1] = strings.TrimSuffix(ws[n-1], "s")
			return strings.Join(ws, " ")
		}
	}
	return ""
}
