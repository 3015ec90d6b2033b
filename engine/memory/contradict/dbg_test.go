package contradict

import "testing"

func TestDbg(t *testing.T) {
	for _, p := range [][2]string{
		{"We pin Python 3.11 for the data pipeline.", "The data pipeline runs on Python 3.9."},
	} {
		t.Logf("%+v", Check(Statement{Text: p[0]}, Statement{Text: p[1]}))
		a := analyze(Statement{Text: p[0]})
		for _, tk := range a.toks { t.Logf("%s %s %v", tk.surface, tk.key, tk.stop) }
	}
}
