package contradict

// The word lists the heuristic is built on. Entries are written as plain words and
// stemmed when the package loads, so every inflection of a listed word matches.

// negators flip the polarity of the clause they appear in and carry no content.
var negators = []string{
	"not", "no", "never", "without", "cannot", "neither", "nor", "none", "nothing",
	"nobody", "non", "nowhere",
	// Leaving something out is not doing it: "Public functions can skip
	// docstrings" answers "must have docstrings".
	"skip", "skips", "skipped", "skipping", "ignore", "ignores", "ignored", "ignoring",
}

// absenceWords negate the one word they qualify, never a whole clause: "rows with
// a missing email" are rows without an email ("Missing rows are logged" is no
// imperative, unlike "Never log rows").
var absenceWords = []string{"missing", "lacking", "absent"}

// antonyms maps the "negative" member of an opposed pair to its positive member: a
// clause saying "disabled" is read as "not enabled", so it lines up with a clause
// saying "enabled" and the two differ only in polarity.
var antonyms = map[string]string{
	"disable": "enable", "disabled": "enabled",
	"disallow": "allow", "disallowed": "allowed",
	"forbid": "allow", "forbidden": "allowed",
	"prohibit": "allow", "prohibited": "allowed",
	"deny": "allow", "denied": "allowed",
	"ban": "allow", "banned": "allowed",
	"avoid": "use", "avoided": "use",
	"exclude": "include", "excluded": "included", "excluding": "including",
	"optional": "required",
	"private":  "public", "privately": "publicly",
	"async": "sync", "asynchronous": "synchronous", "asynchronously": "synchronously",
	"off":       "on",
	"false":     "true",
	"immutable": "mutable",
	"fail":      "succeed", "failed": "succeeded", "fails": "succeeds", "failure": "success",
	"unsuccessful": "successful",
	"reject":       "accept", "rejected": "accepted",
	"manual": "automatic", "manually": "automatically",
	"insecure":    "secure",
	"unsupported": "supported",
	"decrease":    "increase", "decreased": "increased",
	"offline":      "online",
	"unsafe":       "safe",
	"invalid":      "valid",
	"unencrypted":  "encrypted",
	"disconnected": "connected",
	"stop":         "start", "stopped": "started",
	"blacklist": "whitelist", "denylist": "allowlist",
	"lazy": "eager", "lazily": "eagerly",
}

// synonyms canonicalises words that mean the same for this purpose.
var synonyms = map[string]string{
	"sync": "synchronous", "synchronously": "synchronous",
	"automatically": "automatic",
	"config":        "configuration",
	"prod":          "production", "dev": "development", "stage": "staging",
	"success": "succeed", "successful": "succeed", "successfully": "succeed",
	"postgres":  "postgresql",
	"k8s":       "kubernetes",
	"repo":      "repository",
	"db":        "database",
	"docs":      "documentation",
	"publicly":  "public",
	"mandatory": "required", "compulsory": "required",
	// A state switched on is enabled: "switched off" answers "enabled".
	"on": "enabled",
}

// stopWords carry no subject: articles, pronouns, prepositions, modal and auxiliary
// verbs, quantifiers. "always" is here because it only asserts the positive polarity.
var stopWords = []string{
	"a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "by", "from",
	"as", "into", "onto", "about", "via", "per", "than", "then", "this", "that", "these",
	"those", "it", "its", "they", "them", "their", "we", "our", "us", "you", "your", "i",
	"my", "he", "she", "his", "her", "there", "here", "which", "who", "whom", "what",
	"when", "where", "how", "all", "every", "each", "any", "some", "up", "also", "just",
	"even", "both", "more", "most", "very", "if", "always", "must", "should", "may",
	"might", "can", "could", "will", "would", "shall", "need", "needs", "has", "have",
	"had", "do", "does", "did", "be", "is", "are", "was", "were", "been", "being", "get",
	"gets", "got", "let", "lets", "too", "other", "such", "own", "same", "etc", "ever",
	"longer", "whether", "currently", "now", "anymore", "only", "able", "many", "several",
	"few",
}

// clauseBreaks end a clause: negation does not reach across them.
var clauseBreaks = []string{
	"but", "instead", "whereas", "while", "although", "though", "because", "so",
	"unless", "except", "until", "rather", "otherwise", "since", "however",
}

// choiceCues introduce the slot where a choice is named: "use X", "with X",
// "stored in X", "is X".
var choiceCues = []string{
	"use", "uses", "using", "used", "with", "via", "over", "in", "into", "to", "on", "as",
	"is", "are", "was", "were", "be", "by", "through", "from", "prefer", "prefers",
	"choose", "chose", "adopt", "adopted", "switch", "switched", "migrate", "migrated",
	"target", "targets", "run", "runs", "on", "per", "at",
}

// participles after "is"/"are" make that "is" an auxiliary, not a copula naming a
// value: "are stored in" vs "are kept in" is a paraphrase, not a choice.
var participles = []string{
	"kept", "built", "made", "written", "done", "run", "set", "put", "held", "sent",
	"shown", "known", "given", "taken", "seen", "got", "gotten", "found", "bound",
	"hidden", "brought", "read", "left", "meant", "paid", "said", "told", "thought",
	"cut", "shut", "split", "spread", "hit", "sold", "sought", "taught", "won",
}

// scopeWords qualify where or for what a statement holds. Two statements whose
// subjects differ in a scope word ("in development" vs "in production", "unit tests"
// vs "integration tests") talk about different things and do not contradict.
var scopeWords = []string{
	"production", "staging", "development", "qa", "sandbox", "preview", "test", "testing",
	"ios", "android", "web", "mobile", "desktop", "windows", "linux", "macos",
	"frontend", "backend",
	"unit", "integration", "e2e", "smoke", "load",
	"primary", "replica",
	"internal", "external",
}

// numberWords are spelled-out numbers read as values.
var numberWords = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"hundred": 100, "thousand": 1000, "single": 1, "once": 1, "twice": 2,
}

// doWords start an imperative negation: "Do not deploy", "Don't bother".
var doWords = map[string]bool{"do": true, "does": true, "did": true}

// modals before a negator make it negate the whole clause: "must not", "should
// never", "may not".
var modals = map[string]bool{
	"must": true, "should": true, "may": true, "might": true, "can": true, "could": true,
	"shall": true, "will": true, "would": true, "need": true, "ought": true,
}

// permissionWords, negated, negate the whole clause: "X is not allowed" is "do not X".
var permissionWords = []string{
	"allowed", "permitted", "recommended", "required", "needed", "necessary", "supported",
	"ok", "okay", "fine", "acceptable", "advisable", "encouraged", "supposed", "safe",
}

// clauseFlipWords are antonyms that negate their whole clause: "X is forbidden" is
// "do not X", "avoid X" is "do not use X".
var clauseFlipWords = []string{
	"forbidden", "prohibited", "disallowed", "banned", "denied", "avoid", "optional",
}
