package main

// embedderStatus reports the embedder spelunk would use. Until engine/embed lands the
// only one is the hashing fallback.
func embedderStatus() (string, string, error) {
	return "spelunk-hash-384", "built-in word vectors not installed", nil
}
