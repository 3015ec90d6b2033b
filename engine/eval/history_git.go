package eval

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Reasons a commit of the history is not made into a query.
const (
	SkipRootCommit   = "root-commit"      // no parent to index
	SkipMerge        = "merge"            // more than one parent
	SkipShortMessage = "short-message"    // fewer than 3 words once trailers and issue numbers are gone
	SkipNoChanges    = "no-changes"       // an empty commit
	SkipTooManyFiles = "too-many-files"   // more than MaxFiles files changed
	SkipNoSource     = "no-source-file"   // only tests, docs, config or new files
	SkipNotIndexed   = "gold-not-indexed" // the index skipped every gold file at the parent
)

// historyCommit is one commit made into a localisation query.
type historyCommit struct {
	SHA, Parent string
	Query       string
	Gold        []string // non-test, non-doc source paths at the parent that the commit touched
}

// runGit runs git in dir and returns its stdout; the error carries git's stderr.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitCmd(ctx, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotePath=false"}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	return cmd
}

// resolveSince turns --since into a commit id, or says plainly that it is not one.
func resolveSince(ctx context.Context, root, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("--since %q is not a revision", rev)
	}
	out, err := runGit(ctx, root, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("--since %s does not name a commit in %s (try a tag, a branch or a SHA from git log)", rev, root)
	}
	return strings.TrimSpace(string(out)), nil
}

// walkLog calls fn with each first-parent commit of HEAD, newest first (after
// since, when set): its id, parents and message. fn returns false to stop.
func walkLog(ctx context.Context, root, since string, fn func(sha string, parents []string, msg string) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rng := "HEAD"
	if since != "" {
		rng = since + "..HEAD"
	}
	cmd := gitCmd(ctx, root, "log", "--first-parent", "--format=%H %P%n%B%x00", rng, "--")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	stopped, ferr := readLog(bufio.NewReaderSize(out, 64<<10), fn)
	if stopped || ferr != nil {
		cancel() // the rest of the log is not wanted
	}
	werr := cmd.Wait()
	switch {
	case ferr != nil:
		return ferr
	case ctx.Err() != nil && !stopped:
		return ctx.Err()
	case werr != nil && !stopped:
		return fmt.Errorf("git log in %s: %w: %s", root, werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// readLog parses NUL-terminated log records; it reports whether fn stopped early.
func readLog(br *bufio.Reader, fn func(string, []string, string) (bool, error)) (bool, error) {
	for {
		rec, err := br.ReadString(0)
		if err == io.EOF && strings.TrimSpace(rec) == "" {
			return false, nil
		}
		if err != nil && err != io.EOF {
			return false, fmt.Errorf("read git log: %w", err)
		}
		rec = strings.TrimLeft(strings.TrimSuffix(rec, "\x00"), "\n")
		head, msg, _ := strings.Cut(rec, "\n")
		ids := strings.Fields(head)
		if len(ids) == 0 {
			continue
		}
		more, ferr := fn(ids[0], ids[1:], msg)
		if ferr != nil || !more {
			return !more, ferr
		}
	}
}

// selectCommits walks the history newest first and keeps up to limit commits
// that make a fair localisation query; it returns them oldest first, with how many
// commits were looked at and why the others were skipped.
func selectCommits(ctx context.Context, repo *source.Repo, since string, limit, maxFiles int) ([]historyCommit, int, map[string]int, error) {
	var kept []historyCommit
	considered := 0
	skipped := map[string]int{}
	err := walkLog(ctx, repo.Root, since, func(sha string, parents []string, msg string) (bool, error) {
		considered++
		c, reason, err := qualify(ctx, repo, sha, parents, msg, maxFiles)
		if err != nil {
			return false, err
		}
		if reason != "" {
			skipped[reason]++
			return true, nil
		}
		kept = append(kept, c)
		return len(kept) < limit, nil
	})
	if err != nil {
		return nil, considered, skipped, err
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	return kept, considered, skipped, nil
}

// qualify decides whether one commit becomes a query: the skip reason, or the
// commit with its query and gold files.
func qualify(ctx context.Context, repo *source.Repo, sha string, parents []string, msg string, maxFiles int) (historyCommit, string, error) {
	switch {
	case len(parents) == 0:
		return historyCommit{}, SkipRootCommit, nil
	case len(parents) > 1:
		return historyCommit{}, SkipMerge, nil
	}
	q := cleanMessage(msg)
	if wordCount(q) < 3 {
		return historyCommit{}, SkipShortMessage, nil
	}
	changes, err := repo.Diff(ctx, parents[0], sha)
	if err != nil {
		return historyCommit{}, "", fmt.Errorf("commit %s: %w", shortSHA(sha), err)
	}
	switch {
	case len(changes) == 0:
		return historyCommit{}, SkipNoChanges, nil
	case len(changes) > maxFiles:
		return historyCommit{}, SkipTooManyFiles, nil
	}
	gold := goldFiles(changes)
	if len(gold) == 0 {
		return historyCommit{}, SkipNoSource, nil
	}
	return historyCommit{SHA: sha, Parent: parents[0], Query: q, Gold: gold}, "", nil
}

// goldFiles are the source files the commit changed that existed at the parent
// (paths at the parent): files it only added cannot be found there.
func goldFiles(changes []source.Change) []string {
	var gold []string
	for _, c := range changes {
		p := c.Path
		switch c.Kind {
		case source.Added:
			continue
		case source.Renamed:
			p = c.OldPath
		}
		if isSourceFile(p) {
			gold = append(gold, p)
		}
	}
	sort.Strings(gold)
	return gold
}

// isSourceFile reports whether p is code a localisation query can target: not a
// test or example, not documentation, data or configuration, not binary.
func isSourceFile(p string) bool {
	if index.IsTest(p) || isDocFile(p) || parse.Language(p) == "" {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") { // .github/, .gitignore, .eslintrc: configuration
			return false
		}
	}
	return true
}

var docExt = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".rst": true, ".txt": true,
	".adoc": true, ".yaml": true, ".yml": true, ".json": true, ".jsonc": true, ".lock": true}

var docNames = map[string]bool{"changelog": true, "changes": true, "history": true, "news": true,
	"readme": true, "license": true, "licence": true, "authors": true, "contributors": true,
	"notice": true, "copying": true, "go.sum": true, "package-lock.json": true, "pnpm-lock.yaml": true}

// isDocFile reports whether p is documentation, a changelog, data or a lock file.
func isDocFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	if docExt[ext] || docNames[base] || docNames[strings.TrimSuffix(base, ext)] && (ext == "" || docExt[ext]) {
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(dir) {
		case "doc", "docs", "documentation":
			return true
		}
	}
	return false
}

var (
	// knownTrailer matches the trailers removed wherever they appear.
	knownTrailer = regexp.MustCompile(`(?i)^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id|reviewed-on|pr-url|bug|fixes|closes|resolves|refs)\s*:`)
	// tokenLine is a "Token: value" line; a final paragraph of them is a trailer block.
	tokenLine = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*: \S`)
	issueURL  = regexp.MustCompile(`https?://github\.com/[^/\s]+/[^/\s]+/(issues|pull)/\d+\S*`)
	issueRef  = regexp.MustCompile(`(?i)\(\s*(#|gh-)\d+\s*\)|(^|[\s,;:(\[])(#|gh-)\d+\b`)
	// closingWord is what an issue reference leaves behind: "Fixes", "closes".
	closingWord = regexp.MustCompile(`(?i)^\s*([-*+]\s*)?(fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s*[.:]?\s*$`)
	wordRe      = regexp.MustCompile(`[\p{L}\p{N}]+`)
)

// cleanMessage is the query made from a commit message: subject and body with
// trailers, issue and pull-request references removed, on one line.
func cleanMessage(msg string) string {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	// A final paragraph of Token: value lines (not the subject) is a trailer block.
	end := len(lines)
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	start := end
	for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	if start > 0 && start < end {
		block := true
		for _, l := range lines[start:end] {
			if !tokenLine.MatchString(strings.TrimSpace(l)) {
				block = false
				break
			}
		}
		if block {
			end = start
		}
	}
	var out []string
	for i, l := range lines[:end] {
		if i > 0 && knownTrailer.MatchString(l) {
			continue
		}
		l = issueURL.ReplaceAllString(l, " ")
		l = issueRef.ReplaceAllString(l, "$2")
		if i > 0 && closingWord.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(strings.Fields(strings.Join(out, " ")), " ")
}

func wordCount(s string) int { return len(wordRe.FindAllString(s, -1)) }

// lineRange is an inclusive range of old-side lines a hunk touched.
type lineRange struct{ lo, hi int }

// oldHunks parses `git diff -U0 parent commit` into the old-side line ranges per
// path at the parent. A pure insertion after old line a (b = 0) touches line a.
func oldHunks(ctx context.Context, root, parent, commit string) (map[string][]lineRange, error) {
	out, err := runGit(ctx, root, "diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--src-prefix=a/",
		"--dst-prefix=b/", parent, commit, "--")
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", shortSHA(commit), err)
	}
	return parseHunks(string(out))
}

func parseHunks(diff string) (map[string][]lineRange, error) {
	hunks := map[string][]lineRange{}
	cur, header := "", false
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur, header = "", true
		case header && strings.HasPrefix(line, "--- "):
			cur = diffPath(strings.TrimPrefix(line, "--- "))
		case strings.HasPrefix(line, "@@ "):
			header = false
			if cur == "" {
				continue // an added file: no old side
			}
			r, err := parseHunkHeader(line)
			if err != nil {
				return nil, err
			}
			hunks[cur] = append(hunks[cur], r)
		}
	}
	return hunks, nil
}

// diffPath reads the path of a "--- a/path" header; "" for /dev/null.
func diffPath(s string) string {
	s = strings.TrimRight(s, "\t")
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, "a/")
}

// parseHunkHeader reads "@@ -a,b +c,d @@" into the old-side lines it touches.
func parseHunkHeader(line string) (lineRange, error) {
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return lineRange{}, fmt.Errorf("malformed hunk header %q", line)
	}
	a, b, hasB := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
	start, err := strconv.Atoi(a)
	if err != nil {
		return lineRange{}, fmt.Errorf("malformed hunk header %q", line)
	}
	n := 1
	if hasB {
		if n, err = strconv.Atoi(b); err != nil {
			return lineRange{}, fmt.Errorf("malformed hunk header %q", line)
		}
	}
	if n == 0 {
		return lineRange{lo: max(start, 1), hi: max(start, 1)}, nil
	}
	return lineRange{lo: start, hi: start + n - 1}, nil
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// errNotGit says why a plain directory has no history to evaluate.
var errNotGit = errors.New("not a git repository: eval history turns a repository's commits into queries")
