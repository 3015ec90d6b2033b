package search

import (
	"context"
	"testing"
)

// Type.member for a member the type inherits ranks the base's definition
// first, above another type's member of that name that says the type's name
// more often (issue 37: search Flask.add_url_rule).
func TestInheritedMemberRanksFirst(t *testing.T) {
	dir := t.TempDir()
	writeRepoFile(t, dir, "core.py", "class Core:\n    def add_rule(self, rule):\n        \"\"\"Register a rule.\"\"\"\n        return rule\n\n\n"+
		"class Server(Core):\n    def start(self):\n        return 1\n")
	writeRepoFile(t, dir, "plan.py", "class Plan:\n    def add_rule(self, rule):\n        \"\"\"Server rules: a Server plan records the Server rule for the Server.\"\"\"\n        return rule\n")
	db, emb, sum := commitAndIndex(t, dir)
	res, err := New(db, sum.RepositoryID, emb).Search(context.Background(), "Server.add_rule", Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) < 2 || res.Results[0].QualifiedName != "Core.add_rule" {
		t.Fatalf("Server.add_rule ranks %s first, want Core.add_rule", names(res.Results))
	}
}
