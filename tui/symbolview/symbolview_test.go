package symbolview

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestCandidates(t *testing.T) {
	tests := []struct{ line, self, want string }{
		{"    if not is_eligible_for_refund(order):", "process_refund", "is_eligible_for_refund() order"},
		{"    total := cart.Subtotal(lines) + tax.Compute(x)", "Total", "cart.Subtotal() Subtotal() tax.Compute() Compute() total cart lines tax x"},
		{"return exports.applyDiscount(cartTotals.subtotal(lines), percent);", "", "exports.applyDiscount() applyDiscount() cartTotals.subtotal() subtotal() exports cartTotals lines percent"},
		{"// just a comment about nothing", "", "just a comment about nothing"},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range candidates(tt.line, tt.self) {
			s := c.name
			if c.call {
				s += "()"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("candidates(%q):\n got %s\nwant %s", tt.line, strings.Join(got, " "), tt.want)
		}
	}
}

func TestPickPrefersExactSameLanguageSameFile(t *testing.T) {
	from := symbols.Symbol{ID: 1, Name: "process_refund", Path: "py/refunds.py", Language: "python"}
	class := symbols.Symbol{ID: 2, Name: "Order", Path: "py/models.py", Language: "python"}
	jsTotal := symbols.Symbol{ID: 3, Name: "total", Path: "js/money.js", Language: "javascript"}
	local := symbols.Symbol{ID: 4, Name: "refund_window", Path: "py/refunds.py", Language: "python"}
	other := symbols.Symbol{ID: 5, Name: "refund_window", Path: "py/other.py", Language: "python"}
	tests := []struct {
		c     candidate
		found []symbols.Symbol
		want  int64
	}{
		{candidate{name: "order"}, []symbols.Symbol{class}, 0},                            // a parameter, not the class
		{candidate{name: "total"}, []symbols.Symbol{jsTotal}, 0},                          // another language
		{candidate{name: "refund_window", call: true}, []symbols.Symbol{other, local}, 4}, // same file first
		{candidate{name: "refund_window", call: true}, []symbols.Symbol{other}, 5},
		{candidate{name: "refund_window"}, []symbols.Symbol{other}, 0}, // not called: same file only
		{candidate{name: "process_refund", call: true}, []symbols.Symbol{from}, 0},
	}
	for _, tt := range tests {
		got, ok := pick(from, tt.c, tt.found)
		if (tt.want == 0) == ok || (ok && got.ID != tt.want) {
			t.Errorf("pick(%+v) = %d %v, want %d", tt.c, got.ID, ok, tt.want)
		}
	}
}
