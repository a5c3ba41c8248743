#!/usr/bin/env bash
# Figures for docs/cluster.md: the int-conversion case reduced on this machine with -j 2, and
# through a local Dask cluster of two single-slot workers (127.0.0.1, ports the OS picks):
# queries per second, result and verdict string; the same with one worker killed mid-run; and
# a second run with --cache. Prints figures; asserts nothing. Needs scripts/setup.sh's venv
# (or WHITTLE_PYTHON) and a release build (cargo build --release -p whittle-cli).
#   bash scripts/bench-cluster.sh [CASE_DIR]    (default ../shared/bench/cases/int-conversion)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CASE="$(cd "${1:-$ROOT/../shared/bench/cases/int-conversion}" && pwd)"
WHITTLE="$ROOT/target/release/whittle"
export WHITTLE_PYTHON="${WHITTLE_PYTHON:-$ROOT/.cache/python/bin/python}"
"$WHITTLE_PYTHON" -c 'import distributed' || { echo "no Dask: run scripts/setup.sh" >&2; exit 1; }

WORK="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

"$WHITTLE_PYTHON" -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 0 --no-dashboard \
  --scheduler-file "$WORK/scheduler.json" 2>"$WORK/scheduler.log" &
PIDS+=($!)
until [ -s "$WORK/scheduler.json" ]; do sleep 0.2; done
ADDRESS="$("$WHITTLE_PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["address"])' "$WORK/scheduler.json")"
WORKERS=()
start_worker() {
  "$WHITTLE_PYTHON" -m distributed.cli.dask_worker "$ADDRESS" --nthreads 1 --no-nanny \
    --no-dashboard --host 127.0.0.1 --local-directory "$WORK" 2>"$WORK/worker$1.log" &
  PIDS+=($!); WORKERS+=($!)
  until grep -qs "Registered to" "$WORK/worker$1.log"; do sleep 0.2; done
}
start_worker 1
start_worker 2

# One run in a fresh copy of the case: NAME, then whittle's extra arguments.
run() {
  local name=$1; shift
  rm -rf "$WORK/$name"; mkdir "$WORK/$name"
  cp "$CASE/input.c" "$CASE/check.sh" "$WORK/$name/"
  (cd "$WORK/$name" && "$WHITTLE" reduce --test ./check.sh input.c -q --stats-json stats.json "$@" 2>log)
}
figures() {
  "$WHITTLE_PYTHON" - "$WORK" "$@" <<'EOF'
import json, sys
work, names = sys.argv[1], sys.argv[2:]
base = None
rates = {}
for name in names:
    s = json.load(open(f"{work}/{name}/stats.json"))
    result = open(f"{work}/{name}/input.c").read()
    qps = s["queries"] / s["wall_seconds"]
    # Setup: reading the input and reaching the runner (for a cluster, its connection).
    testing = s["wall_seconds"] - s.get("setup_seconds", 0)
    tqps = s["queries"] / testing if testing > 0 else 0
    base = base or (qps, result, s["verdicts"], tqps)
    print(f"{name:<22} {s['queries']:>5} queries {s['wall_seconds']:>6.1f} s {qps:>5.2f}/s "
          f"({qps / base[0]:.2f}x local); after {s.get('setup_seconds', 0):.2f} s of setup "
          f"{tqps:>5.2f}/s ({tqps / base[3] if base[3] else 0:.2f}x)  result {len(result)} bytes, "
          f"same result: {result == base[1]}, same verdicts: {s['verdicts'] == base[2]}, "
          f"tests run {s.get('tests_run', '-')}, errors {s['errors']}")
    rates.setdefault(name.rstrip("123"), []).append((qps, tqps))
if "local" in rates and "cluster" in rates:
    med = lambda xs: sorted(xs)[len(xs) // 2]
    (lq, lt), (cq, ct) = ([med([r[i] for r in rates[k]]) for i in (0, 1)] for k in ("local", "cluster"))
    print(f"medians: local {lq:.2f}/s, cluster {cq:.2f}/s ({cq / lq:.2f}x); "
          f"after setup: local {lt:.2f}/s, cluster {ct:.2f}/s ({ct / lt:.2f}x)")
EOF
}

echo "case: $CASE; cluster: $ADDRESS, two workers of one slot"
# Three of each, one after the other: a run is a few seconds, and runs differ by 15%.
for i in 1 2 3; do
  run local$i -j 2
  run cluster$i --cluster "$ADDRESS"
done
# A worker killed 8 s into the run: its test goes to the other worker.
run cluster-worker-killed --cluster "$ADDRESS" &
r=$!
sleep 8; kill -9 "${WORKERS[0]}"; wait $r
run cached -j 2 --cache "$WORK/verdicts"
start=$(date +%s%N)
run cached-again -j 2 --cache "$WORK/verdicts"
echo "cached-again wall (whole command): $(( ($(date +%s%N) - start) / 1000000 )) ms"
figures local1 local2 local3 cluster1 cluster2 cluster3 cluster-worker-killed cached cached-again
