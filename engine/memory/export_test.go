package memory

// Exported for the tests of package memory_test.
var (
	BriefingSimilarSQL = briefingSimilarSQL
	CandidatesSQL      = candidatesSQL
)
