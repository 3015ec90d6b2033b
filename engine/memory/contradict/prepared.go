package contradict

// Analysis is a statement analysed once for comparison with many others: the
// analysis (tokenising, value matching) is nearly all of Check's cost, and a
// batch of memories checked against their candidates meets the same texts many
// times over.
type Analysis struct{ st statement }

// Analyze analyses s for CheckAnalyzed.
func Analyze(s Statement) *Analysis { return &Analysis{st: analyze(s)} }

// CheckAnalyzed is Check on statements analysed by Analyze: the same result.
// It only reads the analyses, so one can be compared with any number of others,
// from any number of goroutines.
func CheckAnalyzed(a, b *Analysis) Result { return check(a.st, b.st) }
