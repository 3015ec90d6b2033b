package contradict

func intersect(x, y map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range x {
		if y[k] {
			out[k] = true
		}
	}
	return out
}

func minus(x, y map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range x {
		if !y[k] {
			out[k] = true
		}
	}
	return out
}

func union(x, y map[string]bool) map[string]bool {
	out := make(map[string]bool, len(x)+len(y))
	for k := range x {
		out[k] = true
	}
	for k := range y {
		out[k] = true
	}
	return out
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
