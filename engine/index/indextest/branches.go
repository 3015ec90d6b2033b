package indextest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SwitchBranch is the branch Branches adds to the fixture.
const SwitchBranch = "switch"

// Branches is the fixture repository with a second branch, SwitchBranch,
// that differs from main by files added, removed, renamed and edited, in
// ways that move the graph: a method renamed that others call, an interface
// newly implemented, a module gone that others import, a second definition
// of a name that was unique, an import target renamed away. main is checked
// out; it returns the root and both commits.
func Branches(t testing.TB) (root, mainHead, switchHead string) {
	t.Helper()
	root = Repo(t)
	mainHead = Git(t, root, "rev-parse", "HEAD")
	Git(t, root, "checkout", "-q", "-b", SwitchBranch)
	for p, content := range switchAdded {
		writeRel(t, root, p, content)
	}
	Git(t, root, "rm", "-q", "-r", "internal/retry", "js/lib/ratelimit.js")
	Git(t, root, "mv", "billing/export.go", "billing/exports.go")
	Git(t, root, "mv", "py/shop/utils/retry.py", "py/shop/utils/backoff.py")
	for p, edits := range switchEdits {
		editRel(t, root, p, edits...)
	}
	Git(t, root, "add", "-A")
	Git(t, root, "commit", "-q", "-m", "switch: files added, removed, renamed, edited")
	switchHead = Git(t, root, "rev-parse", "HEAD")
	Git(t, root, "checkout", "-q", "main")
	return root, mainHead, switchHead
}

var switchAdded = map[string]string{
	"cart/wishlist.go": `package cart

// Wishlist keeps items a shopper wants later.
type Wishlist struct{ items []Item }

// Add keeps an item once.
func (w *Wishlist) Add(it Item) error {
	for _, have := range w.items {
		if have.SKU == it.SKU {
			return nil
		}
	}
	w.items = append(w.items, it)
	return nil
}

// MoveToCart empties the wishlist into c.
func (w *Wishlist) MoveToCart(c *Cart) error {
	for _, it := range w.items {
		if err := c.Add(it); err != nil {
			return err
		}
	}
	w.items = nil
	c.Delete("")
	return nil
}
`,
	"py/shop/billing/credits.py": `"""Store credit instead of a refund."""

from .tax import round_cents


def store_credit(amount):
    return round_cents(amount)


def compute_tax(amount, region):
    """A second compute_tax: the name is no longer unique in the repository."""
    return store_credit(amount)
`,
	"ts/src/loyalty.ts": `import { retryWithBackoff } from "./retry";

/** Points earned per whole currency unit spent. */
export function pointsFor(cents: number): number {
  return Math.floor(cents / 100);
}

export async function award(customer: string, cents: number): Promise<number> {
  return retryWithBackoff(async () => pointsFor(cents));
}
`,
}

// switchEdits are replacements, old then new, per file.
var switchEdits = map[string][]string{
	// A method that others call renamed.
	"cart/cart.go": {"func (c *Cart) Remove(", "func (c *Cart) Delete(", "// Remove drops", "// Delete drops"},
	// BuyXGetYFree now implements Discount.
	"cart/discount.go": {"// Reduction implements Discount: for every",
		"// Code implements Discount.\nfunc (b BuyXGetYFree) Code() string { return \"\" }\n\n// Reduction implements Discount: for every"},
	// A function others import renamed, with its uses in the file.
	"py/shop/billing/tax.py": {"round_money", "round_cents"},
	// A base class's method renamed: its subclass's calls lose their target.
	"ts/src/gateway.ts": {"protected record(", "protected remember("},
}

func writeRel(t testing.TB, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editRel applies replacements (old, new, old, new, ...) to a file, each of
// which must match.
func editRel(t testing.TB, root, rel string, edits ...string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	data, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("%s has no %q to replace", rel, edits[i])
		}
		s = strings.ReplaceAll(s, edits[i], edits[i+1])
	}
	writeRel(t, root, rel, s)
}

// CloneAt clones the repository at root into a directory of its own with
// commit checked out: the same tree under another root, so another
// repository key in the same database. The clone borrows root's objects
// (--shared): quick at any size, and it works where root lacks blobs the
// commit does not need.
func CloneAt(t testing.TB, root, commit string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "clone")
	Git(t, filepath.Dir(root), "clone", "-q", "--shared", "--no-checkout", root, dst)
	Git(t, dst, "checkout", "-q", "--detach", commit)
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
