#!/usr/bin/env bash
# million.sh: issue 39's "a million chunks" — COPIES (10) clones of a git
# repository of $GOROOT/src, each indexed as its own repository into one
# database of a fresh cluster (spelunk's embedded settings), one `spelunk
# index` process after another under /usr/bin/time -v: wall time, peak RSS and
# chunks after each, then the data directory's size. Search latency over the
# result: BenchmarkSearchChannels with SPELUNK_BENCH_BUSY_DB (printed at the
# end) and SPELUNK_BENCH_BUSY_ROOT set to one of the clones.
#
#   engine/benchmarks/million.sh GOROOT_REPO WORKDIR [COPIES]
#
# GOROOT_REPO: a git repository of $GOROOT/src (cp -r "$(go env GOROOT)/src" D
# && git -C D init -q && git -C D add -A && git -C D commit -qm src).
set -euo pipefail
src=$(realpath "$1")
work=$2
copies=${3:-10}
bin=$(realpath "${BIN:-bin/spelunk}")
mkdir -p "$work"
work=$(realpath "$work")
"$bin" db start --data-dir "$work/pg" >/dev/null
url=$("$bin" db url --data-dir "$work/pg")
printf '%-5s %9s %9s %10s %9s\n' copy wall_s rss_mib chunks load1
for i in $(seq -w 1 "$copies"); do
	dir="$work/copy$i"
	[[ -d "$dir" ]] || git clone --quiet "$src" "$dir"
	/usr/bin/time -v -o "$work/time$i.txt" "$bin" --db "$url" --cache off index "$dir" >"$work/index$i.log" 2>&1
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time$i.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time$i.txt")
	chunks=$(psql -Atq "$url" -c "SELECT count(*) FROM symbols" 2>/dev/null || echo "?")
	printf '%-5s %9s %9s %10s %9s\n' "$i" "$wall" "$rss" "$chunks" "$(cut -d' ' -f1 /proc/loadavg)"
done
echo "data directory: $(du -sm "$work/pg" | cut -f1) MiB"
echo "SPELUNK_BENCH_BUSY_DB=$url SPELUNK_BENCH_BUSY_ROOT=$work/copy01"
