#!/bin/bash
# Measures whittle reduce on a big C input made here (never committed): N MB of one C program
# repeated with renamed symbols. For each point, a fresh run is sent SIGTERM that many seconds
# in ("first": one second after its first test starts) and the script prints how long the
# exit took, the peak memory (/usr/bin/time -v), the exit status and whether FILE is intact.
#   scripts/bench-big-input.sh [MB] [points...]     e.g. scripts/bench-big-input.sh 50 1 5 30 first
set -eu
mb=${1:-50}; shift || true
points=${*:-1 5 30 first}
bin=${WHITTLE:-$(dirname "$0")/../target/release/whittle}
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir "$d/tmp"
python3 - "$mb" > "$d/big.c" <<'PY'
import sys
want, i, out = int(sys.argv[1]) * 1000000, 0, ["int printf(const char *, ...);\n"]
size = 0
while size < want:
    s = f"""struct point_{i} {{ int x; int y; }};
static int helper_{i}(int a, int b) {{
  int s = 0;
  for (int k = 0; k < a; k++) {{ if (k % 3 == 0) s += b * k; else s -= k; }}
  return s + {i};
}}
int compute_{i}(struct point_{i} *p, int n) {{
  int total = helper_{i}(n, p->x);
  while (n-- > 0) {{ total += p->y * n; if (total > 1000) break; }}
  return total;
}}
"""
    out.append(s); size += len(s); i += 1
sys.stdout.write("".join(out))
PY
printf '#!/bin/sh\n[ -f %s/first ] || date +%%s.%%N > %s/first\nsleep 0.5\ngrep -q compute_0 run.c\n' "$d" "$d" > "$d/check.sh"
chmod +x "$d/check.sh"
echo "input: $(wc -c < "$d/big.c") bytes"
for p in $points; do
  cp "$d/big.c" "$d/run.c"; rm -f "$d/run.c.orig" "$d/first"
  start=$(date +%s.%N)
  TMPDIR=$d/tmp /usr/bin/time -v "$bin" reduce --test "$d/check.sh" "$d/run.c" -j 1 -q > "$d/out.txt" 2>&1 &
  tpid=$!; sleep 0.1; wpid=$(pgrep -P $tpid)
  if [ "$p" = first ]; then
    while [ ! -f "$d/first" ]; do sleep 0.1; done
    echo "first test $(echo "$(cat "$d/first") - $start" | bc) s after the start"; sleep 1
  else
    sleep "$(echo "$start + $p - $(date +%s.%N)" | bc)"
  fi
  sent=$(date +%s.%N); kill -TERM "$wpid"; wait $tpid || true; ended=$(date +%s.%N)
  echo "SIGTERM at $(echo "$sent - $start" | bc) s: exited $(echo "$ended - $sent" | bc) s later," \
    "FILE unchanged: $(cmp -s "$d/run.c" "$d/big.c" && echo yes || echo no)," \
    "temporary folders left: $(ls "$d/tmp" | wc -l)"
  grep -E "Maximum resident|Exit status|User time" "$d/out.txt" | sed 's/^\s*/  /'
done
