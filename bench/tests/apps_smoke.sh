#!/usr/bin/env bash
# bench-smoke test of bench/apps: a tiny run on one host writes a well-formed apps.csv (a row
# per application, library and task count, positive times, an2d's CPU above zero wherever AN2
# tasks talk), apps-runs.csv, apps.md with its tables and targets, and real PNG plots, and
# leaves no process or file behind; bad options are refused with status 2. (Figures are not
# judged.)
set -uo pipefail
build=${AN2_BUILD_DIR:?AN2_BUILD_DIR must name the build directory}
source_dir=${AN2_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
apps="$source_dir/bench/apps"
work=$(mktemp -d "/tmp/bapps.XXXXXX")
export TMPDIR="$work/t"   # bench/apps's private directory goes here
mkdir -p "$TMPDIR"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
finish() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    if grep -qsF "$work/t/an2-apps" "/proc/$p/environ" 2>/dev/null; then
      fail "process left behind: $(tr '\0' ' ' <"/proc/$p/cmdline")"
      kill -KILL "$p" 2>/dev/null
    fi
  done
  [ -z "$(ls -A "$TMPDIR")" ] || fail "left in its temp dir: $(ls -A "$TMPDIR")"
  rm -rf "$work"
  [ $failures -eq 0 ] && echo "apps smoke: ok" || echo "apps smoke: $failures failure(s)"
  exit $((failures > 0))
}
trap finish EXIT

rc=0
# (stock through the pvmds: Debian's direct route now and then delivers a sender's message
# after a later one, which the all-to-all's check rightly fails)
timeout 100 "$apps" --tiny --hosts 1 --stock-route default --build "$build" --out "$work/out" \
  >"$work/log" 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat "$work/log" >&2; fail "bench/apps --tiny exited with $rc"; }
csv="$work/out/apps.csv"
[ "$(head -n 1 "$csv" 2>/dev/null)" = "app,library,hosts,tasks,size,seconds,fabric_cpu,seconds_min,seconds_max,runs,team_cpu" ] ||
  fail "apps.csv header: $(head -n 1 "$csv" 2>/dev/null)"
for app in heat samplesort matmul mandel alltoall; do
  for lib in stock an2; do
    tasks="1 2"; [ $app = alltoall ] && tasks="2 4"
    for t in $tasks; do
      awk -F, -v a=$app -v l=$lib -v t="$t" '$1 == a && $2 == l && $3 == 1 && $4 == t && NF == 11 &&
        $6 > 0 && $6 <= $9 && $6 >= $8 && $7 >= 0 && $10 == 1 && $11 >= 0 &&
        (l != "an2" || t < 2 || $7 > 0) { found = 1 } END { exit !found }' "$csv" ||
        fail "apps.csv has no good row for $app $lib $t tasks"
    done
  done
done
[ "$(wc -l <"$work/out/apps-runs.csv")" -eq 21 ] || fail "apps-runs.csv: $(wc -l <"$work/out/apps-runs.csv") lines, 21 expected"
[ "$(awk -F, 'NR > 1 && $3 ~ /^[0-9]+$/' "$work/out/apps-line.csv" | wc -l)" -eq 20 ] ||
  fail "apps-line.csv: not one cache line taken before each of the 20 runs"
for text in "## heat, size 32, 1 host" "## All-to-all, 256-byte messages, 5 rounds" "## The product's goals" "| 4 | 6 |" \
            "taken before each of the run's 20 measurements"; do
  grep -qF -- "$text" "$work/out/apps.md" || fail "apps.md lacks '$text'"
done
for png in apps-speedup.png apps-time.png; do
  [ "$(head -c 4 "$work/out/$png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$png is not a PNG"
done
for bad in "--rounds 0" "--hosts 9" "--stock-route tcp" "--frobnicate"; do
  rc=0
  # shellcheck disable=SC2086  # bad is a word list
  "$apps" $bad --build "$build" --out "$work/bad" >"$work/badlog" 2>&1 || rc=$?
  [ $rc -eq 2 ] || fail "bench/apps $bad: exit $rc, 2 expected"
done
