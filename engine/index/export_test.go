package index

// SetBatchFiles sets how many files share a write transaction, so that a test can
// make a crash land between two commits of a small repository.
func SetBatchFiles(o *Options, n int) { o.batchFiles = n }

// WorkLock is the work lock's two keys for a repository: a test holds it as
// the statements of a killed run do.
func WorkLock(repoID int64) (int32, int32) { return workSpace, lockKey(repoID) }

// KeepEdgeUpdate makes a first load's full pass update its edges, as other
// runs do, instead of rewriting them (resolve_rewrite.go).
func KeepEdgeUpdate(o *Options) { o.keepEdgeUpdate = true }

// ReportEdgeRewrite has the run set *rewrote to whether it rewrote the edges.
func ReportEdgeRewrite(o *Options, rewrote *bool) { o.rewroteEdges = rewrote }

// ReportHeldEdges has the run set *held to whether it held its reference
// edges until the full pass (edgespool.go).
func ReportHeldEdges(o *Options, held *bool) { o.heldEdges = held }

// SetResolveParts sets how many connections a full pass decides the edges on.
func SetResolveParts(o *Options, n int) { o.resolveParts = n }

// ResolveIn makes a full pass decide the edges in SQL ("sql") or in memory
// ("memory") whatever the repository's size.
func ResolveIn(o *Options, where string) { o.resolveIn = where }

// AtSQLPass has the run call f as a resolution in SQL starts.
func AtSQLPass(o *Options, f func()) { o.atSQLPass = f }
