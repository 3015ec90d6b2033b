package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
)

const (
	beginMarker = "# >>> spelunk >>>"
	endMarker   = "# <<< spelunk <<<"
	// createdHeader opens a hook file spelunk created. Uninstall deletes a file
	// holding this header and the block and nothing else, and never another:
	// a user's own one-line "#!/bin/sh" hook stays.
	createdHeader = "#!/bin/sh\n# Created by `spelunk hooks install`; `spelunk hooks uninstall` deletes it.\n"
)

// block is the text spelunk puts into a hook. The subshell forks the run and
// returns at once, so git waits for two forks only; the run is not a job of the
// hook, so a `wait` in the original hook does not wait for it either. Its input
// is /dev/null so post-rewrite's standard input stays for the original hook;
// its output goes to /dev/null because a caller of git reading git's output
// would otherwise wait until the run ends (the run writes its own log). A
// binary that is gone makes the block do nothing: a stale hook never breaks git.
// ${1+"$@"} rather than "$@": bash before 4.4 (macOS's /bin/bash) calls "$@"
// unbound under `#!/bin/bash -u` when a hook gets no arguments, as post-commit.
func block(bin, root, name string, flags []string) string {
	b := shellQuote(bin)
	args := "--repo " + shellQuote(root)
	for _, f := range flags {
		args += " " + shellQuote(f)
	}
	return beginMarker + "\n" +
		"# Added by `spelunk hooks install`, removed by `spelunk hooks uninstall`: starts an incremental\n" +
		"# index in the background; this hook's arguments, input and exit status are left alone.\n" +
		"if [ -f " + b + " ] && [ -x " + b + " ]; then\n" +
		"\t(" + b + " hooks run " + args + " " + name + " -- ${1+\"$@\"} </dev/null >/dev/null 2>&1 &) || :\n" +
		"fi\n" +
		endMarker + "\n"
}

// shellQuote quotes s for sh: in single quotes, each single quote in s
// closing the quotes, escaped, and reopening them.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// binaryLine finds the binary in a block written by block.
var binaryLine = regexp.MustCompile(`(?m)^if \[ -f '((?:[^']|'\\'')*)' \]`)

// shells are the interpreters whose scripts can take the block (POSIX sh syntax).
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true,
	"mksh": true, "zsh": true, "yash": true, "posh": true}

// hookFile is a hook file as read from disk.
type hookFile struct {
	path       string
	exists     bool
	mode       fs.FileMode
	content    []byte
	start, end int    // the block's byte range in content; start < 0 when absent
	refused    string // why a foreign hook cannot take the block ("" if it can)
}

func readHook(p string) (hookFile, error) {
	f := hookFile{path: p, start: -1}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("hook %s: %w", p, err)
	}
	f.exists, f.mode = true, fi.Mode()
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		// Editing through the link would change its target, often a file the
		// repository tracks.
		f.refused = "a symlink to " + target + " (spelunk does not edit through symlinks)"
		return f, nil
	case !fi.Mode().IsRegular():
		f.refused = "not a regular file"
		return f, nil
	}
	if f.content, err = os.ReadFile(p); err != nil {
		return f, fmt.Errorf("hook %s: %w", p, err)
	}
	if f.start, f.end, err = findBlock(f.content); err != nil {
		return f, fmt.Errorf("hook %s: %w", p, err)
	}
	if f.start < 0 {
		f.refused = refusal(f.content, fi.Mode())
	}
	return f, nil
}

// findBlock returns the byte range of the block, from the start of its first
// marker line to the end of its last, or -1, -1 when there is none.
func findBlock(content []byte) (int, int, error) {
	i := bytes.Index(content, []byte("\n"+beginMarker+"\n"))
	if i < 0 {
		return -1, -1, nil
	}
	start := i + 1
	rest := content[start:]
	j := bytes.Index(rest, []byte("\n"+endMarker))
	if j < 0 {
		return -1, -1, fmt.Errorf("the spelunk block has no end marker %q: fix the file by hand", endMarker)
	}
	end := start + j + 1 + len(endMarker)
	if end < len(content) && content[end] == '\n' {
		end++
	}
	return start, end, nil
}

// refusal says why a hook without the block cannot take it, or "".
func refusal(content []byte, mode fs.FileMode) string {
	if mode.Perm()&0o111 == 0 {
		// Making it executable to run the block would switch the user's hook on.
		return "not executable, so git does not run it (spelunk will not switch it on)"
	}
	if bytes.IndexByte(content, 0) >= 0 {
		return "a binary, not a shell script"
	}
	interp := interpreter(content)
	switch {
	case interp == "":
		return "not a shell script (no #! line)"
	case !shells[interp]:
		return "a " + interp + " script, not a shell script"
	case bytes.IndexByte(content, '\n') < 0:
		return "nothing after its #! line, not even a newline"
	}
	return ""
}

// interpreter is the program named by a #! line ("/usr/bin/env bash" is
// bash), or "" without one.
func interpreter(content []byte) string {
	line, _, _ := bytes.Cut(content, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return ""
	}
	name := path.Base(fields[0])
	if name != "env" {
		return name
	}
	for _, f := range fields[1:] {
		if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
			return path.Base(f)
		}
	}
	return ""
}

func (f hookFile) hasBlock() bool { return f.start >= 0 }

// createdOnly: the file is exactly what Install creates, with any block.
func (f hookFile) createdOnly() bool {
	return f.hasBlock() && string(f.content[:f.start]) == createdHeader && f.end == len(f.content)
}

// binary is the spelunk the block starts, "" when the block is not ours to read.
func (f hookFile) binary() string {
	m := binaryLine.FindSubmatch(f.content[f.start:f.end])
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(string(m[1]), `'\''`, "'")
}

// withBlock returns the content with blk in place: replacing the block, or
// inserted after the #! line of a foreign hook.
func (f hookFile) withBlock(blk string) []byte {
	if !f.exists {
		return []byte(createdHeader + blk)
	}
	var out []byte
	if f.hasBlock() {
		out = append(out, f.content[:f.start]...)
		out = append(out, blk...)
		return append(out, f.content[f.end:]...)
	}
	nl := bytes.IndexByte(f.content, '\n') + 1
	out = append(out, f.content[:nl]...)
	out = append(out, blk...)
	return append(out, f.content[nl:]...)
}

// withoutBlock returns the content without the block: for a chained hook,
// exactly the bytes it had before Install.
func (f hookFile) withoutBlock() []byte {
	out := append([]byte(nil), f.content[:f.start]...)
	return append(out, f.content[f.end:]...)
}
