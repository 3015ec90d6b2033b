#!/usr/bin/env bash
# fetch.sh downloads every row of train/manifest.tsv from its package registry
# and unpacks it under $SPELUNK_TRAIN_CACHE/src/<ecosystem>/<package>@<version>/;
# given a HISTORY file too (train/history.tsv), it clones each of its
# repositories at its commit, with its history (the miner's commit pairs), into
# src/git/<owner>+<name>@<commit:12>/. Repositories are cloned from
# https://github.com/, or, when SPELUNK_TRAIN_MIRRORS names a directory of bare
# mirrors laid out as <owner>+<name>/repo, from there.
#
# It is idempotent (a row whose directory exists is skipped), refuses rows that
# match train/excluded.tsv, keeps going past a failed row and lists the failed
# rows at the end (exit status 1 when any failed). Only the registries are used:
# the Go module proxy, PyPI, the npm registry, crates.io and Maven Central.
#
#   train/fetch.sh [-j JOBS] [MANIFEST [HISTORY]]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jobs=4
if [[ ${1:-} == -j ]]; then jobs=$2; shift 2; fi
manifest=${1:-$here/manifest.tsv}
history=${2:-}
excluded=$here/excluded.tsv
cache=${SPELUNK_TRAIN_CACHE:-$HOME/.cache/spelunk/train}
src=$cache/src
work=$cache/tmp
mkdir -p "$src" "$work"
failures=$work/failures.$$
: >"$failures"

# excluded_reason prints why a row is refused, or nothing.
declare -A ex_repo ex_pkg
while IFS=$'\t' read -r kind name _; do
	[[ $kind == \#* || -z $kind ]] && continue
	case $kind in
	repo) ex_repo[${name,,}]=1 ;;
	package) ex_pkg[${name,,}]=1 ;;
	esac
done <"$excluded"
excluded_reason() { # eco pkg repo
	local eco=$1 pkg=$2 repo=$3 p
	[[ -n ${ex_repo[${repo,,}]:-} ]] && { echo "repository $repo is excluded"; return; }
	[[ -n ${ex_pkg[${eco,,}:${pkg,,}]:-} ]] && { echo "package $pkg is excluded"; return; }
	if [[ $eco == go && $pkg == github.com/* ]]; then
		p=$(cut -d/ -f2,3 <<<"$pkg")
		[[ -n ${ex_repo[${p,,}]:-} ]] && echo "module of excluded repository $p"
	fi
}

unpack_zip() { # zip dest strip-prefix-dir?
	local z=$1 dest=$2 t
	t=$(mktemp -d "$work/unz.XXXXXX")
	unzip -q -o "$z" -d "$t" || { rm -rf "$t"; return 1; }
	chmod -R u+w "$t"
	strip_one "$t" "$dest"
}

unpack_tgz() { # tgz dest
	local t
	t=$(mktemp -d "$work/untar.XXXXXX")
	tar -xzf "$1" -C "$t" --no-same-owner 2>/dev/null || { rm -rf "$t"; return 1; }
	chmod -R u+w "$t"
	strip_one "$t" "$2"
}

# strip_one moves t (or its single top directory) to dest.
strip_one() {
	local t=$1 dest=$2 entries
	mapfile -t entries < <(ls -A "$t")
	if ((${#entries[@]} == 1)) && [[ -d $t/${entries[0]} ]]; then
		mv "$t/${entries[0]}" "$dest" && rmdir "$t"
	else
		mv "$t" "$dest"
	fi
}

fetch_go() { # mod ver dest tmp
	local zip
	zip=$(GOMODCACHE=$cache/gomodcache GOFLAGS=-modcacherw go mod download -json "$1@$2" | jq -r '.Zip // empty')
	[[ -n $zip && -f $zip ]] || return 1
	local t
	t=$(mktemp -d "$work/ungo.XXXXXX")
	unzip -q -o "$zip" -d "$t" || return 1
	chmod -R u+w "$t"
	# A module zip holds one directory, module@version, possibly nested in the path.
	local top
	top=$(find "$t" -mindepth 1 -maxdepth 6 -type d -name "*@$2" | head -1)
	[[ -n $top ]] || return 1
	mv "$top" "$3" && rm -rf "$t"
}

fetch_pypi() { # name ver dest tmp
	local url
	url=$(curl -sfL -H 'Accept: application/vnd.pypi.simple.v1+json' "https://pypi.org/simple/$1/" |
		jq -r --arg v "$2" '
		  [.files[] | select(.yanked == false or .yanked == null)] as $f
		  | ($f | map(select(.filename | test("-" + ($v | gsub("\\."; "\\.")) + "\\.(tar\\.gz|zip)$"))) | .[0].url)
		    // ($f | map(select(.filename | test("-" + ($v | gsub("\\."; "\\.")) + "-py3?-none-any\\.whl$"))) | .[0].url)
		    // empty') || return 1
	[[ -n $url ]] || return 1
	local f=$4/${url##*/}
	curl -sfL -o "$f" "$url" || return 1
	case $f in
	*.tar.gz) unpack_tgz "$f" "$3" ;;
	*) unpack_zip "$f" "$3" ;;
	esac
}

fetch_npm() { # name ver dest tmp
	local tgz
	tgz=$(cd "$4" && npm pack "$1@$2" --silent 2>/dev/null | tail -1) || return 1
	[[ -n $tgz && -f $4/$tgz ]] || return 1
	unpack_tgz "$4/$tgz" "$3"
}

fetch_crates() { # name ver dest tmp
	local f=$4/$1-$2.crate
	curl -sfL -o "$f" "https://static.crates.io/crates/$1/$1-$2.crate" ||
		curl -sfL -o "$f" "https://crates.io/api/v1/crates/$1/$2/download" || return 1
	unpack_tgz "$f" "$3"
}

fetch_maven() { # group:artifact ver dest tmp
	local g=${1%%:*} a=${1#*:} f
	f=$4/$a-$2-sources.jar
	curl -sfL -o "$f" "https://repo1.maven.org/maven2/${g//.//}/$a/$2/$a-$2-sources.jar" || return 1
	unpack_zip "$f" "$3"
}

fetch_git() { # owner/name commit dest tmp
	local url=https://github.com/$1
	[[ -n ${SPELUNK_TRAIN_MIRRORS:-} ]] && url=$SPELUNK_TRAIN_MIRRORS/${1/\//+}/repo
	git clone --quiet --no-checkout "$url" "$3" &&
		git -C "$3" -c advice.detachedHead=false checkout --quiet "$2"
}

# fetch_row downloads one row; it prints one status word.
fetch_row() { # eco pkg ver
	local eco=$1 pkg=$2 ver=$3 dest tmp rc
	dest=$src/$eco/${pkg//\//+}@$ver
	[[ $eco == git ]] && dest=$src/git/${pkg//\//+}@${ver:0:12}
	[[ -d $dest ]] && { echo skip; return 0; }
	mkdir -p "$src/$eco"
	tmp=$(mktemp -d "$work/row.XXXXXX")
	case $eco in
	go | pypi | npm | crates | maven | git) "fetch_$eco" "$pkg" "$ver" "$tmp/out" "$tmp" >/dev/null 2>&1 ;;
	*) false ;;
	esac
	rc=$?
	if ((rc == 0)) && [[ -d $tmp/out ]]; then
		mv "$tmp/out" "$dest" && rm -rf "$tmp" && { echo ok; return 0; }
	fi
	rm -rf "$tmp"
	echo FAIL
	return 1
}

progress() { # n total status text
	local line
	line=$(printf '[%3d/%3d] %-4s %s' "$1" "$2" "$3" "$4")
	printf '%s\n' "${line:0:79}"
}

# A history row (repository, commit, language) becomes a row of ecosystem git.
mapfile -t rows < <(
	grep -v '^#' "$manifest" | grep -v '^[[:space:]]*$'
	[[ -n $history ]] && grep -v '^#' "$history" | grep -v '^[[:space:]]*$' |
		awk -F'\t' -v OFS='\t' '{ print "git", $1, $2, $1, $3 }'
)
total=${#rows[@]}
start=$(date +%s)
n=0
for row in "${rows[@]}"; do
	IFS=$'\t' read -r eco pkg ver repo lang <<<"$row"
	n=$((n + 1))
	why=$(excluded_reason "$eco" "$pkg" "$repo")
	if [[ -n $why ]]; then
		progress "$n" "$total" REFU "$eco $pkg: $why"
		printf '%s\t%s\t%s\trefused: %s\n' "$eco" "$pkg" "$ver" "$why" >>"$failures"
		continue
	fi
	while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
	(
		st=$(fetch_row "$eco" "$pkg" "$ver")
		progress "$n" "$total" "$st" "$eco $pkg@$ver"
		[[ $st == FAIL ]] && printf '%s\t%s\t%s\tdownload failed\n' "$eco" "$pkg" "$ver" >>"$failures"
	) &
done
wait
nfail=$(wc -l <"$failures")
echo "fetched $((total - nfail))/$total rows into $src in $(($(date +%s) - start))s"
if ((nfail > 0)); then
	echo "failed or refused rows:"
	cut -c1-79 "$failures"
	rm -f "$failures"
	exit 1
fi
rm -f "$failures"
