package search

import (
	"context"
	"strings"
	"testing"
)

// A traceback from an older version of a file: the frame's line now lies in
// another function. The function the frame names decides; the line only
// picks among definitions of that name (issue 37).
func TestOldTracebackTrustsTheFunctionName(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("class Server:\n")
	b.WriteString("    def request_context(self, environ):\n        \"\"\"Make a request context.\"\"\"\n")
	for i := range 30 {
		b.WriteString("        x" + strings.Repeat("y", i%3) + " = environ\n")
	}
	b.WriteString("        return environ\n\n")
	b.WriteString("    def wsgi_app(self, environ, start_response):\n        return self.request_context(environ)\n\n")
	b.WriteString("    def __call__(self, environ, start_response):\n        return self.wsgi_app(environ, start_response)\n")
	writeRepoFile(t, dir, "server.py", b.String())
	db, emb, sum := commitAndIndex(t, dir)
	// Line 10 lies in request_context today; the frame says __call__.
	trace := strings.Repeat("The server fails on every request since the upgrade. ", 4) + `
Traceback (most recent call last):
  File "/venv/lib/python3.12/site-packages/app/server.py", line 10, in __call__
    return self.wsgi_app(environ, start_response)
RuntimeError: working outside of request context
`
	res, err := New(db, sum.RepositoryID, emb).Search(context.Background(), trace, Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].QualifiedName != "Server.__call__" {
		t.Fatalf("top %s, want Server.__call__ (the frame's function)", names(res.Results))
	}
}
