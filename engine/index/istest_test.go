package index

import "testing"

// TestIsTest: test files by name and by directory, at word and path-segment
// boundaries; look-alikes are code.
func TestIsTest(t *testing.T) {
	for path, want := range map[string]bool{
		"pkg/refund_test.go":                true,
		"pkg/refund.go":                     false,
		"tests/helpers.py":                  true,
		"src/test_refund.py":                true,
		"src/refund_test.py":                true,
		"src/conftest.py":                   true,
		"src/contest.py":                    false,
		"lib/__tests__/a.js":                true,
		"lib/a.test.ts":                     true,
		"lib/a.spec.js":                     true,
		"lib/latest.ts":                     false,
		"spec/models/user_spec.rb":          true,
		"test/unit/user_test.rb":            true,
		"src/main/java/a/Latest.java":       false,
		"src/test/java/a/RefundTest.java":   true,
		"src/main/java/a/RefundTest.java":   true,
		"src/main/java/a/RefundIT.java":     true,
		"src/main/java/a/SPLIT.java":        false,
		"src/main/java/a/Testament.java":    false,
		"src/main/java/a/TestRefund.java":   true,
		"Services/RefundTests.cs":           true,
		"Services/Contest.cs":               false,
		"src/testing/testing.go":            false, // Go's testing package is code
		"src/attestation/verify.go":         false,
		"internal/testdata/fixture.go":      true,
		"examples/basic/main.go":            true,
		"src/protester/main.go":             false,
		"app/Http/Controllers/UserTest.php": true,
	} {
		if got := IsTest(path); got != want {
			t.Errorf("IsTest(%q) = %v, want %v", path, got, want)
		}
	}
}
