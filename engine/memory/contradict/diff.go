package contradict

// hunk is a stretch where two token sequences differ, with the matched token
// just before it (nil at the start).
type hunk struct {
	cue  *token
	a, b []token
}

// diff aligns two token sequences by their longest common subsequence of keys and
// returns the differing stretches and the number of matched content tokens.
func diff(x, y []token) ([]hunk, int) {
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i].key == y[j].key {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var hunks []hunk
	cur := hunk{}
	matched := 0
	for i, j := 0, 0; i < n || j < m; {
		switch {
		case i < n && j < m && x[i].key == y[j].key:
			if len(cur.a) > 0 || len(cur.b) > 0 {
				hunks = append(hunks, cur)
			}
			if x[i].kind == tValue || !x[i].stop {
				matched++
			}
			cur = hunk{cue: &x[i]}
			i++
			j++
		case j >= m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			cur.a = append(cur.a, x[i])
			i++
		default:
			cur.b = append(cur.b, y[j])
			j++
		}
	}
	if len(cur.a) > 0 || len(cur.b) > 0 {
		hunks = append(hunks, cur)
	}
	return hunks, matched
}
