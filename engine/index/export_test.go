package index

// SetBatchFiles sets how many files share a write transaction, so that a test can
// make a crash land between two commits of a small repository.
func SetBatchFiles(o *Options, n int) { o.batchFiles = n }
