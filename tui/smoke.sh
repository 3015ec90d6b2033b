#!/usr/bin/env bash
# tui/smoke.sh [SPELUNK_BINARY]: start the real binary in tmux on a copy of the fixture
# repository (indexed on open, against a throwaway PostgreSQL cluster), type a query,
# capture the pane and check that results, the explain panel and colours are there;
# then the same with NO_COLOR=1, which must show no colour at all; quit with q and
# check the exit status. Exits non-zero, with the captured screen, on any failure.
set -euo pipefail

bin=$(realpath "${1:-bin/spelunk}")
here=$(cd "$(dirname "$0")/.." && pwd)
command -v tmux >/dev/null || { echo "tui-smoke: tmux is not installed (apt-get install tmux)" >&2; exit 1; }
[ -x "$bin" ] || { echo "tui-smoke: no binary at $bin (make build)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spelunk-smoke-XXXXXX")
chmod 755 "$tmp" # as root, the server runs as the postgres user and must enter it
session="spelunk-smoke-$$"
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	"$bin" db stop --data-dir "$tmp/pg" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "tui-smoke: FAIL: $*" >&2
	echo "----- screen -----" >&2
	tmux capture-pane -p -t "$session" >&2 2>/dev/null || true
	echo "----- stderr -----" >&2
	cat "$tmp/stderr" >&2 2>/dev/null || true
	exit 1
}

# wait_for TEXT [SECONDS]: poll the pane until it shows TEXT.
wait_for() {
	local deadline=$((SECONDS + ${2:-30}))
	while ((SECONDS < deadline)); do
		if tmux capture-pane -p -t "$session" 2>/dev/null | grep -qF -- "$1"; then
			return 0
		fi
		if [ -s "$tmp/exit" ]; then
			fail "$(cat "$tmp/exit") while waiting for \"$1\" (does the root command call runTUI?)"
		fi
		sleep 0.2
	done
	fail "timed out waiting for \"$1\""
}

repo="$tmp/shop"
cp -r "$here/testdata/fixture" "$repo"
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=smoke -c user.email=smoke@example.com commit -q -m fixture
"$bin" db start --throwaway --data-dir "$tmp/pg" >"$tmp/pg.log" 2>&1 || { cat "$tmp/pg.log" >&2; echo "tui-smoke: could not start PostgreSQL" >&2; exit 1; }
url=$("$bin" db url --data-dir "$tmp/pg")

# start ENV...: run the UI in a fresh tmux session, 120x40.
start() {
	tmux kill-session -t "$session" 2>/dev/null || true
	tmux new-session -d -s "$session" -x 120 -y 40 \
		"env $* TERM=xterm-256color '$bin' --repo '$repo' --db '$url' --embedder hash 2>'$tmp/stderr'; echo \"spelunk exited \$?\" > '$tmp/exit'; sleep 30"
}

rm -f "$tmp/exit"
start COLORTERM=
wait_for "1 Search" 15
wait_for "✓ fresh" 60 # opening an unindexed repository indexes it
tmux send-keys -t "$session" -l "is an order still eligible for a refund"
wait_for "definitions · semantic" 15
wait_for "explain · #1"
screen=$(tmux capture-pane -p -t "$session")
grep -qE '▸ +1 +func +is_eligible_for_ref' <<<"$screen" || fail "the first result is not is_eligible_for_refund"
grep -qF "refunds.py" <<<"$screen" || fail "no path:lines in the results"
tmux capture-pane -p -e -t "$session" | grep -qE $'\e\\[[0-9;]*38;5;[0-9]+m' || fail "no colours with TERM=xterm-256color"
tmux send-keys -t "$session" Enter # leaves the query box for the results
sleep 0.3
tmux send-keys -t "$session" Enter # opens the selected result
wait_for "is_eligible_for_refund function" 5
wait_for "› is_eligible_for_refund" 5
tmux send-keys -t "$session" Escape
sleep 0.3
tmux send-keys -t "$session" q
for _ in $(seq 50); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
grep -q "spelunk exited 0" "$tmp/exit" 2>/dev/null || fail "q did not quit cleanly: $(cat "$tmp/exit" 2>/dev/null)"

# NO_COLOR: the same screen, no colour sequences.
rm -f "$tmp/exit"
start NO_COLOR=1
wait_for "✓ fresh" 30
tmux send-keys -t "$session" -l "Cart.Add"
wait_for "definitions · identifier" 15
if tmux capture-pane -p -e -t "$session" | grep -qE $'\e\\[[0-9;]*(3[0-9]|38;[25];[0-9;]+)m'; then
	fail "colour sequences on screen with NO_COLOR=1"
fi
tmux send-keys -t "$session" C-c
for _ in $(seq 50); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
grep -q "spelunk exited 0" "$tmp/exit" 2>/dev/null || fail "ctrl+c did not quit cleanly"
echo "tui-smoke: ok (search, explain, symbol, colours, NO_COLOR, quit)"
