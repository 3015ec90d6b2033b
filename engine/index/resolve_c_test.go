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
			FROM edges e LEFT JOIN symbols t ON t.id = e.target_id
			WHERE e.path = $1 AND e.target_name = $2 ORDER BY e.line LIMIT 1`, path, name).Scan(&where, &conf)
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
