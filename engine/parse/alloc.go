package parse

/*
#include <stddef.h>

// Defined by the tree-sitter runtime that go-tree-sitter compiles in.
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static void spelunk_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
*/
import "C"

// go-tree-sitter installs an allocator that calls back into Go for every
// malloc and free tree-sitter makes (so Go code may replace it), which costs
// a cgo callback per allocation: about a third of parse time. Nothing here
// replaces the allocator, so restore tree-sitter's default (libc malloc/free,
// the same functions the callbacks end in, so memory allocated either way is
// freed correctly).
func init() {
	C.spelunk_use_libc_allocator()
}
