package main

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pairs"
)

func TestSinkDedupes(t *testing.T) {
	var b strings.Builder
	s := newSinkFor(&b)
	p := pairs.Pair{Kind: "doc", Query: "Adds two numbers and returns the sum.", Code: "func f() {}", Repo: "r", Path: "a.go"}
	s.emit(p)
	s.emit(p)
	s.emit(pairs.Pair{Kind: "doc", Query: "", Code: "x"})
	if err := s.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 1 || s.byKind["doc"] != 1 || s.byLang["go"] != 1 {
		t.Fatalf("got %d lines, counts %v %v", n, s.byKind, s.byLang)
	}
}
