#!/usr/bin/env bash
# vszoekt.sh: issue 39's table side by side with sourcegraph/zoekt, in one
# run: for each git repository given, a full index by spelunk (a fresh
# embedded-settings cluster of its own) and by zoekt — wall time, CPU
# (spelunk + its PostgreSQL, zoekt), peak RSS, the data on disk right after
# the run (WAL included) — then whole search processes of both, alternated
# (a name that matches, a word that matches nothing), and one file changed
# and re-indexed by `spelunk index --file`.
#
#   engine/benchmarks/vszoekt.sh WORKDIR REPO...
#
# ZOEKT_BIN: the directory holding zoekt-index and zoekt (built from
# sourcegraph/zoekt: go build ./cmd/zoekt ./cmd/zoekt-index). BIN: the spelunk
# binary (default bin/spelunk). ROUNDS: search processes of each (default 20).
# MATCH: the query that matches (default ResolveTCPAddr, a Go name in
# src/net). A REPO is a git repository (cp -r "$(go env GOROOT)/src" D && git
# -C D init -q && git -C D add -A && git -C D commit -qm src); its first .go
# file in `git ls-files` order is the one changed. Nothing is written to it.
set -euo pipefail
work=$(realpath -m "$1")
shift
bin=$(realpath "${BIN:-bin/spelunk}")
zbin=$(realpath "${ZOEKT_BIN:?set ZOEKT_BIN to the directory of zoekt-index and zoekt}")
rounds=${ROUNDS:-20}
match=${MATCH:-ResolveTCPAddr}
tck=$(getconf CLK_TCK)
mkdir -p "$work"

# cluster_cpu D: CPU seconds of a cluster's postmaster, its live children and
# the children it has reaped.
cluster_cpu() {
	local pm
	pm=$(head -1 "$1/postmaster.pid")
	{
		awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat"
		for c in $(cat "/proc/$pm/task/$pm/children"); do awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null || true; done
	} | awk -v t="$tck" '{s += $1} END {printf "%.1f", s / t}'
}

# timed LOG CMD...: runs CMD under /usr/bin/time -v; prints "wall cpu rss_mib".
timed() {
	local log=$1
	shift
	/usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1
	awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i]}
		/User time/ {u = $2} /System time/ {s = $2} /Maximum resident set size/ {r = $2 / 1024}
		END {printf "%.2f %.1f %.0f", w, u + s, r}' "$log.time"
}

# ms CMD...: wall milliseconds of one process.
ms() {
	local t0
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	echo $((($(date +%s%N) - t0) / 1000000))
}

# pct P: the P-th percentile of the numbers on stdin.
pct() { sort -n | awk -v p="$1" '{a[NR] = $1} END {i = int((NR - 1) * p / 100) + 1; print a[i]}'; }

printf '| tree | work | spelunk | zoekt | ratio |\n|---|---|---|---|---|\n'
for repo in "$@"; do
	repo=$(realpath "$repo")
	name=$(basename "$repo")
	d="$work/$name"
	rm -rf "$d"
	mkdir -p "$d"
	"$bin" db start --data-dir "$d/pg" >/dev/null
	url=$("$bin" db url --data-dir "$d/pg")
	empty=$(du -sb "$d/pg" | cut -f1)
	cpu0=$(cluster_cpu "$d/pg")
	read -r sw sc sr <<<"$(timed "$d/index.log" "$bin" --db "$url" --cache off index "$repo")"
	pgcpu=$(awk -v a="$(cluster_cpu "$d/pg")" -v b="$cpu0" 'BEGIN {printf "%.1f", a - b}')
	sdisk=$(du -sb "$d/pg" | cut -f1)
	read -r zw zc zr <<<"$(timed "$d/zoekt.log" "$zbin/zoekt-index" -index "$d/zidx" "$repo")"
	zdisk=$(du -sb "$d/zidx" | cut -f1)
	r() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "–"}'; }
	printf '| %s | full index, wall s | %s | %s | %s |\n' "$name" "$sw" "$zw" "$(r "$sw" "$zw")"
	printf '| %s | full index, CPU s | %s + %s (PostgreSQL) | %s | %s |\n' "$name" "$sc" "$pgcpu" "$zc" \
		"$(r "$(awk -v a="$sc" -v b="$pgcpu" 'BEGIN {print a + b}')" "$zc")"
	printf '| %s | peak RSS, MiB | %s | %s | %s |\n' "$name" "$sr" "$zr" "$(r "$sr" "$zr")"
	# MB to one decimal and the ratio to three: the target (≤ 2×) is met or
	# missed by less than a megabyte.
	mb() { awk -v a="$1" 'BEGIN {printf "%.1f", a / 1000000}'; }
	r3() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f×", a / b}'; }
	printf '| %s | on disk after the run, MB (spelunk: the cluster less its empty %s MB) | %s (%s) | %s | %s (%s) |\n' "$name" \
		"$(mb "$empty")" "$(mb "$sdisk")" "$(mb "$((sdisk - empty))")" "$(mb "$zdisk")" \
		"$(r3 "$sdisk" "$zdisk")" "$(r3 "$((sdisk - empty))" "$zdisk")"
	for q in "$match" qqzzxxnomatch; do
		: >"$d/s.ms"
		: >"$d/z.ms"
		for _ in $(seq "$rounds"); do
			ms "$zbin/zoekt" -index_dir "$d/zidx" "$q" >>"$d/z.ms"
			ms "$bin" --db "$url" --cache off --repo "$repo" search "$q" >>"$d/s.ms"
		done
		s50=$(pct 50 <"$d/s.ms") z50=$(pct 50 <"$d/z.ms")
		printf '| %s | search process "%s", p50 / p95 ms | %s / %s | %s / %s | %s |\n' "$name" "$q" \
			"$s50" "$(pct 95 <"$d/s.ms")" "$z50" "$(pct 95 <"$d/z.ms")" "$(r "$s50" "$z50")"
	done
	# One file saved and re-indexed, in a copy of the tree's first Go file.
	f=$(git -C "$repo" ls-files '*.go' | awk 'NR == 1')
	wt="$d/tree"
	git clone --quiet "$repo" "$wt"
	"$bin" --db "$url" --cache off index "$wt" >"$d/index-copy.log" 2>&1
	: >"$d/f.ms"
	for i in $(seq 5); do
		printf '\nfunc spelunkBenchSave%d() {}\n' "$i" >>"$wt/$f"
		ms "$bin" --db "$url" --cache off --repo "$wt" index --file "$wt/$f" >>"$d/f.ms"
	done
	printf '| %s | one file saved and re-indexed (`index --file`), process p50 ms | %s | – | – |\n' "$name" "$(pct 50 <"$d/f.ms")"
	"$bin" db stop --data-dir "$d/pg" >/dev/null 2>&1 || true
done
rev=$(go version -m "$bin" 2>/dev/null | awk '$2 == "vcs.revision" {print substr($3, 1, 12)}')
echo "load $(cut -d' ' -f1-3 /proc/loadavg); spelunk ${rev:-$bin}"
