package pairs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Commit mining caps.
const (
	maxCommits       = 2000 // commits read per repository
	maxCommitPairs   = 1500 // pairs per repository
	maxCommitFiles   = 5    // a commit touching more files is skipped
	maxDefsPerCommit = 3
)

// isGitTree reports whether dir is the top of a git work tree.
func isGitTree(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// commit is one commit's message and the new-side lines its diff touched.
type commit struct {
	hash, subject, body string
	files               []string
	lines               map[string][][2]int // path -> touched [start,end] ranges, 1-based
}

// commitPairs gives each commit touching 1–5 files → the definitions whose
// line ranges (in the commit's version of the file) its diff touched. The
// commits' file versions are read and parsed by workers, a window of commits
// at a time, and their pairs emitted in the history's order.
func commitPairs(ctx context.Context, r *repo, workers int, emit func(Pair)) error {
	cmd := exec.CommandContext(ctx, "git", "-C", r.gitDir, "log", "-p", "--no-merges", "--no-renames",
		"--unified=0", "--no-color", "--no-ext-diff", "-n", strconv.Itoa(maxCommits),
		"--format=%x00%H%x01%s%x01%b%x02", r.rev, "--")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git log %s: %w", r.gitDir, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git log %s: %w", r.gitDir, err)
	}
	var commits []commit
	readCommits(out, func(c commit) { commits = append(commits, c) })
	// A history that cannot be read to its end (a blob missing from a
	// partial clone stops git log) still gives the commits read before the
	// failure, but the last of them may be cut short; the error is returned
	// after their pairs.
	var stopped error
	if err := cmd.Wait(); err != nil {
		if len(commits) < 2 {
			return fmt.Errorf("git log %s: %w", r.gitDir, err)
		}
		commits = commits[:len(commits)-1]
		stopped = fmt.Errorf("git log %s stopped after %d commits (mined): %w", r.gitDir, len(commits), err)
	}
	src, err := source.Open(ctx, r.gitDir)
	if err != nil {
		return fmt.Errorf("git log %s: %w", r.gitDir, err)
	}
	workers = max(workers, 1)
	blobs := make([]*source.BlobReader, workers) // one git process per worker
	for i := range blobs {
		blobs[i] = src.NewBlobReader()
		defer blobs[i].Close()
	}
	n := 0
	for lo := 0; lo < len(commits) && n < maxCommitPairs; lo += 4 * workers {
		window := commits[lo:min(lo+4*workers, len(commits))]
		found := make([][]Pair, len(window))
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(window); i += workers {
					found[i] = commitDefs(ctx, blobs[w], r, window[i])
				}
			}()
		}
		wg.Wait()
		for _, ps := range found {
			if n >= maxCommitPairs {
				break
			}
			for _, p := range ps {
				emit(p)
			}
			n += len(ps)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return stopped
}

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// readCommits parses `git log -p` output in the format commitPairs asks for.
func readCommits(rd interface{ Read([]byte) (int, error) }, each func(commit)) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var c *commit
	var file string
	var msg strings.Builder
	inMsg := false
	done := func() {
		if c != nil {
			each(*c)
		}
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\x00"):
			done()
			c = &commit{lines: map[string][][2]int{}}
			msg.Reset()
			inMsg = true
			line = line[1:]
		case strings.HasPrefix(line, "diff --git "):
			file = ""
			continue
		case strings.HasPrefix(line, "+++ "):
			if c != nil && strings.HasPrefix(line, "+++ b/") {
				file = line[len("+++ b/"):]
				c.files = append(c.files, file)
			}
			continue
		}
		if inMsg {
			msg.WriteString(line)
			msg.WriteByte('\n')
			if strings.Contains(line, "\x02") {
				inMsg = false
				parts := strings.SplitN(strings.TrimSuffix(strings.TrimSpace(msg.String()), "\x02"), "\x01", 3)
				for len(parts) < 3 {
					parts = append(parts, "")
				}
				c.hash, c.subject, c.body = parts[0], parts[1], parts[2]
			}
			continue
		}
		if m := hunkHeader.FindStringSubmatch(line); m != nil && c != nil && file != "" {
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			end := start + max(count, 1) - 1 // a pure deletion touches the line it sits at
			c.lines[file] = append(c.lines[file], [2]int{start, end})
		}
	}
	done()
}

var trailer = regexp.MustCompile(`(?im)^(signed-off-by|co-authored-by|reviewed-by|reviewed-on|change-id|acked-by|tested-by|run-tryjob|trybot-result|auto-submit|commit-queue|cc|bug|fixes|closes|updates|git-svn-id|pr-url|pr-close):.*$`)

// commitQuery is a commit's subject and body without trailers.
func commitQuery(c commit) string {
	body := trailer.ReplaceAllString(c.body, "")
	return clip(collapse(c.subject+". "+body), maxSection)
}

var noiseSubject = regexp.MustCompile(`(?i)^(merge|revert|bump|release|version|v?\d+\.\d+|wip|update (changelog|readme|deps|dependencies)|fmt|format|lint|typo)`)

// commitDefs returns one commit's pairs.
func commitDefs(ctx context.Context, blobs *source.BlobReader, r *repo, c commit) []Pair {
	if len(c.files) == 0 || len(c.files) > maxCommitFiles || noiseSubject.MatchString(c.subject) {
		return nil
	}
	q := commitQuery(c)
	if trivialText(q) {
		return nil
	}
	var out []Pair
	for _, p := range c.files {
		if !codeLangs[parse.Language(p)] || isTestPath(p) {
			continue
		}
		src, err := blobs.Read(ctx, c.hash+":"+p)
		if err != nil {
			continue
		}
		f := parseSource(p, src)
		if f == nil {
			continue
		}
		for _, i := range touchedDefs(f, c.lines[p]) {
			s := &f.f.Symbols[i]
			out = append(out, Pair{Kind: "commit", Query: q, Code: codeOf(f, i), Repo: r.name, Path: p, Symbol: s.QualifiedName})
			if len(out) == maxDefsPerCommit {
				return out
			}
		}
	}
	return out
}

// touchedDefs are the innermost definitions of f whose lines meet one of
// the ranges.
func touchedDefs(f *srcFile, ranges [][2]int) []int {
	var out []int
	for i, s := range f.f.Symbols {
		if !defKinds[s.Kind] || isTestDef(f, i) {
			continue
		}
		for _, rg := range ranges {
			if rg[0] <= s.EndLine && rg[1] >= s.StartLine && !childTouched(f, i, rg) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// childTouched reports whether a definition nested in symbol i also meets
// rg, so that the pair points at the inner one (a method, not its class).
func childTouched(f *srcFile, i int, rg [2]int) bool {
	for j, s := range f.f.Symbols {
		if j != i && s.Parent == i && defKinds[s.Kind] && rg[0] <= s.EndLine && rg[1] >= s.StartLine {
			return true
		}
	}
	return false
}
