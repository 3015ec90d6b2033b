package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readTSV returns the non-comment rows of a tab-separated file.
func readTSV(t *testing.T, p string) [][]string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			rows = append(rows, strings.Split(l, "\t"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestManifestAvoidsExcluded checks the committed corpus manifest against
// the exclusion list, as fetch.sh does, so that an edit that adds a
// benchmark repository fails here before anyone fetches it.
func TestManifestAvoidsExcluded(t *testing.T) {
	repos, pkgs := map[string]string{}, map[string]bool{}
	for _, r := range readTSV(t, "../../../train/excluded.tsv") {
		switch r[0] {
		case "repo":
			repos[strings.ToLower(r[1])] = r[2]
		case "package":
			pkgs[strings.ToLower(r[1])] = true
		}
	}
	rows := readTSV(t, "../../../train/manifest.tsv")
	if len(rows) < 300 {
		t.Errorf("manifest has %d rows, want at least 300", len(rows))
	}
	ecos := map[string]bool{"go": true, "pypi": true, "npm": true, "crates": true, "maven": true}
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r) != 5 || r[2] == "" || r[3] == "" {
			t.Errorf("row %q: want ecosystem, package, version, source_repository, language", r)
			continue
		}
		eco, pkg, repo := r[0], strings.ToLower(r[1]), strings.ToLower(r[3])
		if !ecos[eco] {
			t.Errorf("row %q: unknown ecosystem", r)
		}
		if seen[eco+":"+pkg] {
			t.Errorf("row %q: package listed twice", r)
		}
		seen[eco+":"+pkg] = true
		if src, ok := repos[repo]; ok {
			t.Errorf("row %q: repository excluded (%s)", r, src)
		}
		if pkgs[eco+":"+pkg] {
			t.Errorf("row %q: package excluded", r)
		}
		if p := strings.Split(pkg, "/"); eco == "go" && p[0] == "github.com" && len(p) >= 3 {
			if src, ok := repos[p[1]+"/"+p[2]]; ok {
				t.Errorf("row %q: module of an excluded repository (%s)", r, src)
			}
		}
	}
}

// TestRankerReposAvoidExcluded checks the ranker's training repositories
// (train/ranker-repos.tsv) against the same exclusion list.
func TestRankerReposAvoidExcluded(t *testing.T) {
	checkRepoList(t, "ranker-repos.tsv", 5, 1, 2)
}

// TestHistoryAvoidsExcluded checks the repositories whose history the corpus
// mines (train/history.tsv: repository, commit, language) against the same
// exclusion list.
func TestHistoryAvoidsExcluded(t *testing.T) {
	checkRepoList(t, "history.tsv", 100, 0, 1)
}

// checkRepoList checks a list of repositories pinned to commits: at least
// atLeast rows, an owner/name in column repoCol and a 40-hex commit in
// column commitCol, no row excluded and none twice.
func checkRepoList(t *testing.T, file string, atLeast, repoCol, commitCol int) {
	t.Helper()
	excluded := map[string]string{}
	for _, r := range readTSV(t, "../../../train/excluded.tsv") {
		if r[0] == "repo" {
			excluded[strings.ToLower(r[1])] = r[2]
		}
	}
	rows := readTSV(t, "../../../train/"+file)
	if len(rows) < atLeast {
		t.Errorf("%s: %d repositories, want at least %d", file, len(rows), atLeast)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r) <= max(repoCol, commitCol) || len(r[commitCol]) != 40 || !strings.Contains(r[repoCol], "/") {
			t.Errorf("%s: row %q: want owner/repository and a 40-hex commit", file, r)
			continue
		}
		repo := strings.ToLower(r[repoCol])
		if src, ok := excluded[repo]; ok {
			t.Errorf("%s: row %q: repository excluded (%s)", file, r, src)
		}
		if seen[repo] {
			t.Errorf("%s: row %q: repository listed twice", file, r)
		}
		seen[repo] = true
	}
}
