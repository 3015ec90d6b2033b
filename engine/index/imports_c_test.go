package index

import "testing"

func TestResolveInclude(t *testing.T) {
	r := newImportResolver([]string{
		"src/ringbuf.c", "src/ringbuf.h", "src/util/str.h", "include/ringbuf/config.h",
		"lib/net/conn.c", "lib/net/include/net/conn.h", "lib/common.h",
	}, nil)
	for _, tc := range []struct{ lang, from, imp, want string }{
		{"c", "src/ringbuf.c", "ringbuf.h", "src/ringbuf.h"},                   // beside the including file
		{"c", "src/ringbuf.c", "util/str.h", "src/util/str.h"},                 // below it
		{"c", "src/ringbuf.c", "ringbuf/config.h", "include/ringbuf/config.h"}, // the repository's include/
		{"cpp", "lib/net/conn.c", "net/conn.h", "lib/net/include/net/conn.h"},  // an include/ beside it
		{"c", "lib/net/conn.c", "common.h", "lib/common.h"},                    // a directory above
		{"c", "lib/net/conn.c", "../common.h", "lib/common.h"},                 // relative
		{"c", "src/ringbuf.c", "<stdio.h>", ""},                                // a system include
		{"c", "src/ringbuf.c", "<ringbuf.h>", ""},                              // angle brackets: external
		{"c", "src/ringbuf.c", "missing.h", ""},                                // no such file
		{"c", "src/ringbuf.c", "../../etc/passwd", ""},                         // outside the repository
	} {
		if got := r.resolve(tc.lang, tc.from, tc.imp); got != tc.want {
			t.Errorf("resolve(%s, %q from %s) = %q, want %q", tc.lang, tc.imp, tc.from, got, tc.want)
		}
	}
}
