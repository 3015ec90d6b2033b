package search

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// repo: and -repo: choose repositories by the names people see (spelunk status,
// the results' [repo] tags) or by their directories, as zoekt's and GitHub's
// repo: do: a pattern matches a repository whose name or root directory holds
// it (ignoring case), or, with * and ?, whose name or root it matches whole.

// MatchesRepo reports whether the repository named name at root passes f's
// repo: and -repo: filters.
func (f Filter) MatchesRepo(name, root string) bool {
	matches := func(pat string) bool { return repoPatternMatches(pat, name, root) }
	if len(f.Repos) > 0 && !anyOf(f.Repos, matches) {
		return false
	}
	return !anyOf(f.NotRepos, matches)
}

// SelectRepos keeps the repositories of repos that f's repo: filters let
// through, in order. With none left the error (wrapping ErrFilter) names the
// repositories there were to choose from.
func SelectRepos[T any](f Filter, repos []T, name, root func(T) string) ([]T, error) {
	if !f.HasRepos() {
		return repos, nil
	}
	var kept []T
	names := make([]string, 0, len(repos))
	for _, r := range repos {
		names = append(names, name(r))
		if f.MatchesRepo(name(r), root(r)) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("%w: %s matches none of the repositories searched (%s)", ErrFilter,
			Filter{Repos: f.Repos, NotRepos: f.NotRepos}, strings.Join(names, ", "))
	}
	return kept, nil
}

func anyOf(pats []string, match func(string) bool) bool {
	for _, p := range pats {
		if match(p) {
			return true
		}
	}
	return false
}

// repoPatternMatches is one repo: pattern against a repository's name and root.
func repoPatternMatches(pat, name, root string) bool {
	root = filepath.ToSlash(root)
	if !strings.ContainsAny(pat, "*?") {
		p := strings.ToLower(pat)
		return strings.Contains(strings.ToLower(name), p) || strings.Contains(strings.ToLower(root), p)
	}
	re := globRegexp(pat)
	return re.MatchString(name) || re.MatchString(root)
}

// globRegexp is a glob (* any run, crossing /; ? one character) as an anchored,
// case-insensitive regular expression.
func globRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?i)^")
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
