#!/usr/bin/env bash
# with-test-cluster.sh SPELUNK_BINARY COMMAND...: start one throwaway PostgreSQL cluster
# in a temp dir (socket there too, no TCP), run COMMAND with SPELUNK_TEST_DATABASE_URL
# pointing at it, then stop and delete the cluster whatever COMMAND did.
set -euo pipefail
bin=$1; shift
root=$(mktemp -d "${TMPDIR:-/tmp}/spelunk-test-XXXXXX")
chmod 755 "$root" # as root, the server runs as the postgres user and must enter it
cleanup() {
	"$bin" db stop --data-dir "$root/pg" >/dev/null 2>&1 || true
	rm -rf "$root"
}
trap cleanup EXIT INT TERM
"$bin" db start --throwaway --data-dir "$root/pg" --json
url=$("$bin" db url --data-dir "$root/pg")
export SPELUNK_TEST_DATABASE_URL=${url/\/spelunk\?//postgres?}
"$@"
