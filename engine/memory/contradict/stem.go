package contradict

import "strings"

// irregular maps irregular forms to their base.
var irregular = map[string]string{
	"ran": "run", "written": "write", "wrote": "write", "built": "build", "sent": "send",
	"kept": "keep", "made": "make", "held": "hold", "went": "go", "gone": "go",
	"bound": "bind", "found": "find", "hidden": "hide", "taken": "take", "took": "take",
	"given": "give", "gave": "give", "shown": "show", "known": "know", "knew": "know",
	"brought": "bring", "left": "leave", "paid": "pay", "said": "say", "told": "tell",
	"children": "child", "data": "data", "does": "do", "did": "do", "done": "do",
	"has": "have", "had": "have", "is": "be", "are": "be", "was": "be", "were": "be",
	"been": "be", "am": "be",
}

// verbPrefixes are the prefixes an irregular verb keeps its forms under.
var verbPrefixes = []string{"re", "un", "over", "mis", "pre"}

// stem reduces a lower-case English word to a crude stem so that inflections of one
// word compare equal (retries/retried/retry, merging/merge, disabled/disable). It
// only has to be consistent, not linguistically right.
func stem(w string) string {
	// An irregular form stems like its base, so "written" meets "write".
	if b, ok := irregular[w]; ok {
		if b == w {
			return b
		}
		return stem(b)
	}
	// A prefixed irregular form stems like its base: rebuilt / rebuild, rewritten.
	for _, p := range verbPrefixes {
		if b, ok := irregular[strings.TrimPrefix(w, p)]; ok && strings.HasPrefix(w, p) && len(w) > len(p)+3 {
			return stem(p + b)
		}
	}
	if len(w) <= 2 {
		return w
	}
	// A noun in -ation names the act of its verb in -ate: pagination/paginate,
	// validation/validates, migration/migrated.
	// The same for -isation/-ization and the verb in -ise/-ize: anonymisation /
	// anonymised.
	// A noun in -ification names the act of its verb in -ify: verification /
	// verifies, notification / notify.
	// Their plurals first: "migrations" meets "migration" and "migrate".
	if strings.HasSuffix(w, "ions") && len(w) > 8 {
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ification") && len(w) > 10:
		w = w[:len(w)-9] + "ify"
	case (strings.HasSuffix(w, "isation") || strings.HasSuffix(w, "ization")) && len(w) > 9:
		w = w[:len(w)-5] + "e"
	case strings.HasSuffix(w, "ation") && len(w) > 7:
		w = w[:len(w)-5] + "ate"
	}
	// Plurals and third person.
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s") && len(w) > 3:
		w = w[:len(w)-1]
	}
	// Past tense and gerund.
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "eed"):
	case strings.HasSuffix(w, "ed") && len(w) >= 4:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && len(w) >= 5:
		w = undouble(w[:len(w)-3])
	}
	if strings.HasSuffix(w, "ly") && len(w) > 5 {
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) > 2 {
		w = w[:len(w)-1]
	}
	// British and American spellings compare equal: anonymise / anonymize.
	if strings.HasSuffix(w, "iz") && len(w) > 4 {
		w = w[:len(w)-1] + "s"
	}
	return w
}

// undouble turns "committ" into "commit" and "shipp" into "ship".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) && !strings.ContainsRune("aeiou", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
