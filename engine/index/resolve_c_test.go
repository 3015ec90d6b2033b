package index_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

var cFixture = map[string]string{
	"c/util.h": `#ifndef UTIL_H
#define UTIL_H
/* Sum of a and b. */
int add(int a, int b);
void log_msg(const char *m);
#endif
`,
	"c/util.c": `#include "util.h"
int add(int a, int b) { return a + b; }
void log_msg(const char *m) { (void)m; }
`,
	"c/other.c": `void log_msg(const char *m) { }
`,
	"c/main.c": `#include <stdio.h>
#include "util.h"
int main(void) { log_msg("x"); return add(1, 2); }
`,
	"cpp/shape.hpp": `#pragma once
namespace geo {
class Circle {
 public:
  double area() const;
  double radius() const { return r_; }
 private:
  double r_ = 1;
};
}
`,
	"cpp/shape.cpp": `#include "shape.hpp"
namespace geo {
double Circle::area() const { return 3 * r_ * radius(); }
}
`,
	"cpp/main.cpp": `#include "shape.hpp"
int main() { geo::Circle c; return c.area() + c.radius(); }
`,
}

// TestCDeclarationEdges: includes resolve to repository files; a call that
// resolves to a declaration in an included header goes to the definition
// when the repository has one, stays on the declaration when it has several.
func TestCDeclarationEdges(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, cFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	target := func(path, name string) (string, string) {
		var where, conf string
		err := db.Pool.QueryRow(context.Background(), `
			SELECT coalesce(t.path || ':' || t.start_line, coalesce(e.target_path, '')), e.confidence
			FROM edges e JOIN files f ON f.id = e.file_id LEFT JOIN symbols t ON t.id = e.target_id
			WHERE f.path = $1 AND e.target_name = $2 ORDER BY e.line LIMIT 1`, path, name).Scan(&where, &conf)
		if err != nil {
			t.Fatalf("%s -> %s: %v", path, name, err)
		}
		return where, conf
	}
	for _, tc := range []struct{ path, name, want, conf string }{
		{"c/main.c", "util.h", "c/util.h", "exact"},          // the include
		{"c/main.c", "<stdio.h>", "", "unresolved"},          // external
		{"c/main.c", "add", "c/util.c:2", "inferred"},        // through util.h to the one definition
		{"c/main.c", "log_msg", "c/util.h:5", "inferred"},    // two definitions: the declaration stays
		{"cpp/main.cpp", "area", "cpp/shape.cpp:3", "exact"}, // typed c.area(): the declaration, then its definition
		{"cpp/main.cpp", "radius", "cpp/shape.hpp:6", "exact"},
		{"cpp/shape.cpp", "radius", "cpp/shape.hpp:6", "inferred"}, // an implicit this->radius(), by receiver
	} {
		if got, conf := target(tc.path, tc.name); got != tc.want || conf != tc.conf {
			t.Errorf("%s -> %s: %s (%s), want %s (%s)", tc.path, tc.name, got, conf, tc.want, tc.conf)
		}
	}
}

// TestSniffedHeaderLanguage: a .h file whose content is C++ is stored as C++
// (files and symbols alike), so that status counts it as C++, the TUI
// highlights it as C++ and the C++ resolution rules apply to its calls (an
// implicit this->bump() inside the class resolves to the sibling method).
func TestSniffedHeaderLanguage(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"counter.h": "#pragma once\nnamespace geo {\nclass Counter {\n public:\n  int next() { return bump() + 1; }\n  int bump() { return n_++; }\n private:\n  int n_ = 0;\n};\n}\n",
		"plain.h":   "#ifndef PLAIN_H\n#define PLAIN_H\nint add(int a, int b);\n#endif\n",
	})
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"counter.h": "cpp", "plain.h": "c"} {
		var file, sym string
		err := db.Pool.QueryRow(context.Background(), `SELECT f.language, s.language FROM files f
			JOIN symbols s ON s.file_id = f.id WHERE f.path = $1 LIMIT 1`, path).Scan(&file, &sym)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if file != want || sym != want {
			t.Errorf("%s: file language %s, symbol language %s, want %s", path, file, sym, want)
		}
	}
	var target, conf string
	err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(t.qualified_name, ''), e.confidence
		FROM edges e JOIN files f ON f.id = e.file_id LEFT JOIN symbols t ON t.id = e.target_id
		WHERE f.path = 'counter.h' AND e.kind = 'calls' AND e.target_name = 'bump'`).Scan(&target, &conf)
	if err != nil {
		t.Fatal(err)
	}
	if target != "geo.Counter.bump" || conf == "unresolved" {
		t.Errorf("next -> bump: %q (%s), want geo.Counter.bump", target, conf)
	}
}
