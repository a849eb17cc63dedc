#!/usr/bin/env bash
# bench-spread: bench/spread summarises three runs as median (lowest–highest), takes AN2/stock
# ratios within each run, and refuses a folder without results.
set -uo pipefail
spread=${AN2_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/bench/spread
work=$(mktemp -d /tmp/bspread.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run DIR AN2_US STOCK_US SYSCALL_US: one run's results (8 B latencies) and physics
run() {
  mkdir -p "$1"
  { echo "transport,bytes,reps,one_way_us,MBps,one_way_us_min,one_way_us_max,MBps_min,MBps_max,runs"
    echo "pvm-an2,8,1000,$2,3,0,0,0,0,3"
    echo "pvm-direct,8,1000,$3,0.3,0,0,0,0,3"; } >"$1/results.csv"
  { echo "| this machine's cost of | measured | how |"
    echo "| --- | ---: | --- |"
    echo "| a system call | $4 µs | getppid |"; } >"$1/physics.md"
  { echo "app,library,hosts,tasks,size,seconds,fabric_cpu,seconds_min,seconds_max,runs,team_cpu"
    echo "heat,an2,1,4,64,0.02,0,0,0,3,0"
    echo "heat,stock,1,4,64,0.08,0,0,0,3,0"; } >"$1/apps.csv"
}
run "$work/a" 3.00 30.0 0.17
run "$work/b" 2.00 30.0 0.20
run "$work/c" 4.00 20.0 1.07
printf 'round,label,ns\n1,pvm-an2,30\n1,pvm-direct,31\n' >"$work/a/line.csv"
printf 'round,label,ns\n1,pvm-an2,170\n1,pvm-direct,31\n2,pvm-an2,33\n' >"$work/b/line.csv"
out=$("$spread" "$work/a" "$work/b" "$work/c") || fail "bench/spread failed on three good runs"
grep -qF '| **PVM over AN2** (libpvm3-an2) | 3.00 (2.00–4.00) |' <<<"$out" ||
  fail "AN2's 8 B latency is not the median (lowest–highest) of the runs"
grep -qF '| stock PVM 3.4.6, direct TCP route | 30.0 (20.0–30.0) |' <<<"$out" ||
  fail "stock's 8 B latency is not the median (lowest–highest) of the runs"
# within each run: 10×, 15×, 5× -> median 10×, range 5–15×
grep -qF '| one host, 8 B latency, stock direct / AN2 | 10.0× (5.00×–15.0×) |' <<<"$out" ||
  fail "the ratio is not taken within each run"
grep -qF '| a system call | 0.20 (0.17–1.07) µs |' <<<"$out" || fail "physics not summarised"
grep -qF '(the host had placed the virtual CPUs farther apart; `line.csv`): a: 0 of 2; b: 1 of 3.' \
  <<<"$out" || fail "the measurements begun with the CPUs far apart are not counted per run"
grep -qF '| heat | 1 | 64 | 4 | 0.08 (0.08–0.08) | 0.02 (0.02–0.02) | 4.00× (4.00×–4.00×) |' <<<"$out" ||
  fail "applications not summarised"
mkdir "$work/empty"
if err=$("$spread" "$work/a" "$work/empty" 2>&1); then
  fail "a folder without results.csv was accepted"
else
  grep -q "no results.csv" <<<"$err" || fail "unclear error for a folder without results: $err"
fi
[ $failures -eq 0 ] && echo "bench-spread: ok"
exit $((failures > 0))
