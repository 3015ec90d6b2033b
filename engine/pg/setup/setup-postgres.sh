#!/usr/bin/env bash
# setup-postgres.sh: make sure this machine has PostgreSQL (server binaries and the
# server dev headers) and the pgvector extension. Idempotent and quiet when there is
# nothing to do; every failure says what to do next.
#
# Order of preference for pgvector (DESIGN.md §2):
#   1. already installed (vector.control present)    -> nothing to do
#   2. a distribution package (postgresql-NN-pgvector) -> apt-get install
#   3. Debian trixie's *source* package, fetched with a temporary apt configuration
#      (the system's sources are never edited) and built against pg_config.
set -euo pipefail

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" != "0" ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
		die "not root and no sudo: install postgresql, postgresql-server-dev-NN and pgvector by hand"
	fi
fi

APT_UPDATED=""
apt_update() {
	[ -n "$APT_UPDATED" ] && return 0
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install PostgreSQL >= 13 and pgvector >= 0.7 with your package manager (Homebrew: brew install postgresql pgvector), or point spelunk at a server with --db URL"
	log "apt-get update"
	$SUDO apt-get update -qq >/dev/null || die "apt-get update failed"
	APT_UPDATED=1
}
apt_install() {
	apt_update
	log "installing $*"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
		die "apt-get install $* failed"
}

# newest installed server major version, "" when none
pg_major() {
	local d best=""
	for d in /usr/lib/postgresql/*/bin/postgres; do
		[ -x "$d" ] || continue
		d=${d#/usr/lib/postgresql/}; d=${d%%/*}
		if [ -z "$best" ] || [ "$d" -gt "$best" ]; then best=$d; fi
	done
	printf '%s' "$best"
}

MAJOR=$(pg_major)
if [ -z "$MAJOR" ]; then
	apt_install postgresql postgresql-contrib
	MAJOR=$(pg_major)
	[ -n "$MAJOR" ] || die "postgresql installed but no server binaries under /usr/lib/postgresql/*/bin"
fi
BIN=/usr/lib/postgresql/$MAJOR/bin
PG_CONFIG=$BIN/pg_config
SHAREDIR=/usr/share/postgresql/$MAJOR
if [ -f "$SHAREDIR/extension/vector.control" ] && [ -f "$SHAREDIR/extension/pg_trgm.control" ]; then
	exit 0 # everything present: stay quiet
fi
if [ ! -f "$SHAREDIR/extension/pg_trgm.control" ]; then
	apt_install postgresql-contrib
fi
if [ -f "$SHAREDIR/extension/vector.control" ]; then exit 0; fi

# The server package ships pg_config too; the headers (postgres.h) are what the
# dev package adds, and what a pgvector build needs.
server_headers() { [ -x "$PG_CONFIG" ] && [ -f "$("$PG_CONFIG" --includedir-server)/postgres.h" ]; }
if ! server_headers; then
	apt_install "postgresql-server-dev-$MAJOR"
fi
server_headers || die "PostgreSQL server headers missing: install postgresql-server-dev-$MAJOR"

# 2. a distribution package
apt_update
if apt-cache show "postgresql-$MAJOR-pgvector" >/dev/null 2>&1; then
	apt_install "postgresql-$MAJOR-pgvector"
	[ -f "$SHAREDIR/extension/vector.control" ] && exit 0
fi

# 3. build Debian trixie's source package against this server.
log "no pgvector package for PostgreSQL $MAJOR here: building it from Debian's source package"
for tool in make gcc; do
	command -v "$tool" >/dev/null 2>&1 || apt_install build-essential
done

# The mirror already configured on this machine (never a hostname written into the repo).
MIRROR=$(grep -hoE '^(URIs:|deb)[[:space:]]+(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+/debian/?' \
	/etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null |
	grep -oE 'https?://[^[:space:]]+' | grep -v security | head -n1 || true)
[ -n "$MIRROR" ] || die "no Debian mirror found in /etc/apt/sources.list*: install pgvector for PostgreSQL $MAJOR by hand (https://github.com/pgvector/pgvector#installation)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lists/partial" "$WORK/src"
printf 'deb-src %s trixie main\n' "${MIRROR%/}" >"$WORK/sources.list"
APT_TMP=(-o "Dir::Etc::SourceList=$WORK/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$WORK/lists" -o "Debug::NoLocking=1")
apt-get "${APT_TMP[@]}" update -qq >/dev/null 2>"$WORK/update.err" ||
	die "cannot read Debian trixie sources from $MIRROR: $(tail -n3 "$WORK/update.err")"
(cd "$WORK/src" && apt-get "${APT_TMP[@]}" source --download-only -qq pgvector >/dev/null 2>"$WORK/source.err") ||
	die "apt-get source pgvector failed: $(tail -n3 "$WORK/source.err")"
ORIG=$(ls "$WORK"/src/pgvector_*.orig.tar.* 2>/dev/null | head -n1)
[ -n "$ORIG" ] || die "pgvector source tarball not found after apt-get source"
tar -xf "$ORIG" -C "$WORK/src"
SRC=$(find "$WORK/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector*' | head -n1)
[ -n "$SRC" ] || die "unexpected layout of $ORIG"
log "building $(basename "$SRC") against PostgreSQL $MAJOR"
make -s -C "$SRC" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >"$WORK/build.log" 2>&1 ||
	die "pgvector build failed: $(tail -n5 "$WORK/build.log")"
$SUDO make -s -C "$SRC" PG_CONFIG="$PG_CONFIG" install >>"$WORK/build.log" 2>&1 ||
	die "pgvector install failed: $(tail -n5 "$WORK/build.log")"
[ -f "$SHAREDIR/extension/vector.control" ] || die "pgvector installed but vector.control is missing from $SHAREDIR/extension"
log "pgvector installed into $SHAREDIR/extension"
