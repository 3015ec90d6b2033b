package parse

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkInvariants asserts what must hold for any parse result.
func checkInvariants(t testing.TB, f *File, src []byte) {
	t.Helper()
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	if len(f.Symbols) == 0 || f.Symbols[0].Kind != KindModule || f.Symbols[0].Parent != -1 {
		t.Fatalf("Symbols[0] must be the file header, got %+v", f.Symbols)
	}
	nLines := bytes.Count(src, []byte{'\n'})
	if len(src) == 0 || src[len(src)-1] != '\n' {
		nLines++
	}
	for i, s := range f.Symbols {
		if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > max(nLines, 1) {
			t.Errorf("symbol %d %q: bad lines %d-%d (file has %d)", i, s.Name, s.StartLine, s.EndLine, nLines)
		}
		if s.StartByte < 0 || s.EndByte < s.StartByte || s.EndByte > len(src) {
			t.Errorf("symbol %d %q: bad bytes %d-%d (file has %d)", i, s.Name, s.StartByte, s.EndByte, len(src))
			continue
		}
		if i > 0 {
			if s.Content != string(src[s.StartByte:s.EndByte]) {
				t.Errorf("symbol %d %q: Content is not the source cut", i, s.Name)
			}
			if s.StartByte > 0 && src[s.StartByte-1] != '\n' {
				t.Errorf("symbol %d %q: does not start at a line start", i, s.Name)
			}
			if s.EndByte < len(src) && src[s.EndByte-1] != '\n' {
				t.Errorf("symbol %d %q: does not end at a line end", i, s.Name)
			}
			if s.Parent < 0 || s.Parent >= len(f.Symbols) || s.Parent == i {
				t.Errorf("symbol %d %q: bad parent %d", i, s.Name, s.Parent)
			}
			if s.Name == "" {
				t.Errorf("symbol %d: empty name", i)
			}
		}
		if s.Kind == KindPart {
			p := f.Symbols[s.Parent]
			if s.StartLine < p.StartLine || s.EndLine > p.EndLine {
				t.Errorf("part %q outside its symbol", s.Name)
			}
		}
	}
	for _, r := range f.Refs {
		if r.From < 0 || r.From >= len(f.Symbols) || f.Symbols[r.From].Kind == KindPart {
			t.Errorf("ref %+v: bad From", r)
		}
		if r.Line < 1 || r.Line > max(nLines, 1) {
			t.Errorf("ref %+v: bad line", r)
		}
		if strings.TrimSpace(r.Name) == "" {
			t.Errorf("ref %+v: empty name", r)
		}
	}
}
