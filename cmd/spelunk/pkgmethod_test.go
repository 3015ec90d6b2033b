package main

import (
	"strings"
	"testing"
)

// TestShowPackageQualifiedMethod: show pkg.Type.Method finds the method as
// show pkg.Func finds a function (issue 40); a wrong package finds nothing.
func TestShowPackageQualifiedMethod(t *testing.T) {
	_, repo := indexedFixture(t)
	code, out, errOut := spelunk(t, "show", "billing.IssueRefund", "--repo", repo)
	if code != 0 || !strings.Contains(out, "func IssueRefund(") {
		t.Fatalf("show billing.IssueRefund: %d %s %s", code, out, errOut)
	}
	code, out, errOut = spelunk(t, "show", "billing.Invoice.Subtotal", "--repo", repo)
	if code != 0 || !strings.Contains(out, "func (inv *Invoice) Subtotal()") {
		t.Fatalf("show billing.Invoice.Subtotal: %d %s %s", code, out, errOut)
	}
	if code, _, _ = spelunk(t, "show", "retry.Invoice.Subtotal", "--repo", repo); code == 0 {
		t.Fatal("show retry.Invoice.Subtotal found a method of billing.Invoice")
	}
}
