package search

import (
	"context"
	"testing"
)

// A configuration key in a dict literal held by a class attribute, and one in
// a module constant, are found by their name and by a verbatim line (issue 37:
// flask's default_config). The method that merely reads the key ranks below.
func TestConfigKeysFound(t *testing.T) {
	dir := t.TempDir()
	writeRepoFile(t, dir, "app.py", "class App:\n    default_config = dict({\n        \"DEBUG\": None,\n"+
		"        \"SEND_FILE_MAX_AGE_DEFAULT\": None,\n        \"PREFERRED_URL_SCHEME\": \"http\",\n    })\n\n"+
		"    def max_age(self):\n        return self.config[\"SEND_FILE_MAX_AGE_DEFAULT\"]\n\n"+
		"    def scheme(self):\n        return self.config[\"PREFERRED_URL_SCHEME\"] or \"http\"\n")
	writeRepoFile(t, dir, "settings.py", "DEFAULTS = {\n    \"RETRY_BACKOFF_LIMIT\": 30,\n}\n\n\n"+
		"def backoff(cfg):\n    return cfg.get(\"RETRY_BACKOFF_LIMIT\", 1)\n")
	db, emb, sum := commitAndIndex(t, dir)
	s := New(db, sum.RepositoryID, emb)
	for _, c := range []struct{ query, want string }{
		{"SEND_FILE_MAX_AGE_DEFAULT", "App.default_config"},
		{`"PREFERRED_URL_SCHEME": "http"`, "App.default_config"},
		{"RETRY_BACKOFF_LIMIT", "DEFAULTS"},
		{"default_config", "App.default_config"},
	} {
		res, err := s.Search(context.Background(), c.query, Options{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].QualifiedName != c.want {
			t.Errorf("%s ranks %s first, want %s", c.query, names(res.Results), c.want)
		}
	}
	lit, err := s.Search(context.Background(), `"PREFERRED_URL_SCHEME": "http"`, Options{Limit: 5, Channels: []Channel{Literal}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lit.Results) == 0 || lit.Results[0].QualifiedName != "App.default_config" {
		t.Errorf("the literal channel returns %s for the verbatim line, want App.default_config first", names(lit.Results))
	}
}
