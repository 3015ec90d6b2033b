package memcache

// SetQuickCheckMax sets quickCheckMaxBytes for a test and returns the undo.
func SetQuickCheckMax(n int64) func() {
	old := quickCheckMaxBytes
	quickCheckMaxBytes = n
	return func() { quickCheckMaxBytes = old }
}
