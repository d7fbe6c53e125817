#!/usr/bin/env bash
# End-to-end scale benchmark: a synthetic federation at full size, scored and replayed
# by the release binary, with DuckDB beside it as the floor and as a peer.
#
#   benches/scale.sh                          # 30 000 members, 120 months
#   benches/scale.sh --members 10000 --months 60
#   BRIDGEHCP_SCALE_DIR=/data/bench benches/scale.sh --members 30000 --months 60
#
# The federation is generated once per size (month by month, in bounded memory) into
# $BRIDGEHCP_SCALE_DIR (default target/scale) and reused; so is the same federation
# reported as results only (no board rows). Then, for `score`, `run` live, `run` frozen
# and `run` on the results-only federation, it prints wall and CPU time, rows per
# second, peak RSS (from /usr/bin/time) and the stage times from the run summary, and
# the same for the monthly run (the last month, continued with --state); then the time
# DuckDB takes to read the columns the scoring reads (the floor), and the time of the
# DuckDB SQL in benches/peers/ that computes the same matchpoints and cross-IMPs, with
# the largest difference from this program's board scores.
#
# Needs /usr/bin/time (GNU time) and python3 with duckdb and polars
# (pip install duckdb polars pyarrow).
set -euo pipefail
cd "$(dirname "$0")/.."

members=30000
months=120
while [ $# -gt 0 ]; do
  case "$1" in
    --members) members="$2"; shift 2 ;;
    --months) months="$2"; shift 2 ;;
    *) echo "usage: benches/scale.sh [--members N] [--months N]" >&2; exit 2 ;;
  esac
done

root="${BRIDGEHCP_SCALE_DIR:-target/scale}"
data="$root/m${members}x${months}"
results_only="$root/m${members}x${months}-results"
out="$root/out"
mkdir -p "$root"

cargo build --release --quiet
bin=target/release/bridgehcp

# Runs a command under GNU time; prints its own output, then wall time and peak RSS.
measure() {
  local label="$1"; shift
  local log="$root/time.log"
  /usr/bin/time -v -o "$log" "$@" | tee "$root/last.txt"
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.1f", s}' "$log")
  echo "$label: wall ${wall}, CPU ${cpu} s (user + system; steadier than wall on a shared machine), peak RSS $((rss / 1024)) MiB"
  echo "$wall" > "$root/last.wall"
}

# Seconds from GNU time's h:mm:ss or m:ss.ss.
seconds() {
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' "$root/last.wall"
}

generate() {
  local dir="$1"; shift
  if [ ! -e "$dir/members.parquet" ]; then
    rm -rf "$dir"
    measure "sample $(basename "$dir")" "$bin" sample --out "$dir" --members "$members" \
      --months "$months" --by-month "$@"
  fi
}
generate "$data"
generate "$results_only" --board-share 0

count() {
  python3 -c "import duckdb,sys; print(duckdb.sql(\"select count(*) from read_parquet('$1/$2/**/*.parquet', hive_partitioning=true)\").fetchall()[0][0])"
}
boards=$(count "$data" boards)
results=$(count "$results_only" results)
echo "federation: $members members, $months months, $boards board rows; results-only: $results result rows"

rate() {
  awk -v n="$1" -v s="$(seconds)" 'BEGIN { if (s > 0) printf "%.0f rows/s\n", n / s; else print "-" }'
}

echo "== score"
measure "score" "$bin" score --data "$data" --out "$out/score"
rate "$boards"
echo "== run, live"
measure "run live" "$bin" run --data "$data" --out "$out/live"
rate "$boards"
cp "$root/last.txt" "$root/live.txt"
echo "== run, frozen"
measure "run frozen" "$bin" run --data "$data" --out "$out/frozen" --mode frozen
rate "$boards"
cp "$root/last.txt" "$root/frozen.txt"
echo "== run, live, without board_scores"
measure "run live --no-board-scores" "$bin" run --data "$data" --out "$out/lean" --no-board-scores
rate "$boards"
echo "== run on the results-only federation"
measure "run results-only" "$bin" run --data "$results_only" --out "$out/results-only"
rate "$results"

echo "== the monthly run: the last month continued from a state that ends the month before"
last=$(ls -d "$data"/boards/month=* | sort | tail -1 | sed 's/.*month=//')
until=$(date -d "$last-01 -1 day" +%F)
"$bin" run --quiet --data "$data" --out "$out/until" --until "$until" --no-board-scores
measure "run --state (month $last)" "$bin" run --data "$data" --out "$out/month" --state "$out/until"

echo "== DuckDB: reading the scored columns (the floor), and the same scoring in SQL"
python3 benches/peers/duckdb_peer.py "$data" "$out/score/board_scores.parquet" | tee "$root/duckdb.txt"

echo "== polars (python): the same frozen replay, vectorised by month"
python3 benches/peers/polars_replay.py --data "$data" --run "$out/frozen" --json > "$root/polars.json"
python3 -c "import json,sys; f=json.load(open(sys.argv[1])); print(f'polars frozen replay: read {f[\"read_s\"]} s, replay {f[\"replay_s\"]} s, {f[\"player_updates\"]} player updates, {f[\"members_compared\"]} members compared, largest difference {f[\"max_abs_diff\"]}')" "$root/polars.json"

# A stage's seconds from a run summary: "(reading 4.2, hashing 1.1, scoring 3.0, ...)".
stage() {
  sed -n "s/.*[(,] *$2 \([0-9.]*\).*/\1/p" "$1" | head -1
}
duck=$(awk '/scoring.sql:/ { for (i = 1; i <= NF; i++) if ($i == "in") { print $(i + 1); exit } }' "$root/duckdb.txt")
peer=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['replay_s'])" "$root/polars.json")
scoring=$(stage "$root/live.txt" scoring)
replay=$(stage "$root/frozen.txt" replay)
echo "== ratios (above 1: this program is faster)"
awk -v d="$duck" -v s="$scoring" 'BEGIN { printf "scoring: DuckDB SQL %s s (pairs matchpoints and cross-IMPs only) / run live scoring stage %s s (every format, model inputs included) = %.2f\n", d, s, d / s }'
awk -v p="$peer" -v r="$replay" 'BEGIN { printf "frozen replay: polars %s s / run frozen replay stage %s s = %.2f\n", p, r, p / r }'
