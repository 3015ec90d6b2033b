package index_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// jsObjectFixture: an object built by assignments with alias chains (res.type
// = res.contentType = function ...), an object literal with a member added by
// one, and another object with a member of a common name (set) and a call to
// a method it does not define (this.end: its prototype's).
var jsObjectFixture = map[string]string{
	"res.js": `var res = module.exports = {};

res.contentType = res.type = function contentType(type) {
  return this.set('Content-Type', type);
};

res.set = res.header = function header(field, val) {
  this.headers[field] = val;
  return this;
};

res.send = function send(body) {
  this.type('html');
  this.header('X-Sent', '1');
  return this.end(body);
};

res.end = function end(body) {
  return body;
};
`,
	"cache.js": `var cache = {};

cache.set = function set(k, v) {
  this.store[k] = v;
};

cache.fill = function fill() {
  this.set('a', 1);
  this.end();
};

module.exports = cache;
`,
	"proto.js": `const proto = {
  init() {
    this.reset();
    this.run();
  },
  reset() {
    return 1;
  },
};

proto.run = proto.go = function go() {
  return 2;
};

module.exports = proto;
`,
}

// this.m() inside an object's member links to the object's own member of that
// name or alias, and only to it: not another object's member of a common
// name, not a unique name elsewhere the object does not define (issue 37).
func TestJSObjectMembersThroughAliases(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, jsObjectFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, source, name, want string }{
		{"res.js", "res.contentType", "set", "res.header inferred []"},
		{"res.js", "res.send", "type", "res.contentType inferred []"},
		{"res.js", "res.send", "header", "res.header inferred []"},
		{"res.js", "res.send", "end", "res.end inferred []"},
		{"cache.js", "cache.fill", "set", "cache.set inferred []"},
		{"cache.js", "cache.fill", "end", " unresolved []"}, // not res.end: cache has none
		{"proto.js", "proto.init", "reset", "proto.reset inferred []"},
		{"proto.js", "proto.init", "run", "proto.go inferred []"},
	} {
		es := callEdges(t, db, c.path, c.source, c.name)
		if len(es) != 1 {
			t.Errorf("%s → this.%s: %d edges, want 1", c.source, c.name, len(es))
			continue
		}
		if got := fmt.Sprintf("%s %s %v", es[0].target, es[0].confidence, es[0].candidates); got != c.want {
			t.Errorf("%s → this.%s = %q, want %q", c.source, c.name, got, c.want)
		}
	}
}
