//go:build !unix

package source

import "os"

// openFlags: this platform has no O_NONBLOCK or O_NOFOLLOW; the Lstat and
// Fstat checks in openRegular still keep special files out.
const openFlags = os.O_RDONLY
