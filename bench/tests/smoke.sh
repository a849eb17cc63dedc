#!/usr/bin/env bash
# bench-smoke tests: bench/compare and pvmbench run end to end, write well-formed results and
# real PNG plots, report failures and skipped transports, and leave nothing behind.
# Usage: smoke.sh compare|failure|interrupt|raw|usage   (run by ctest with AN2_BUILD_DIR set)
set -uo pipefail
case_name=${1:?usage: smoke.sh compare|failure|interrupt|raw|usage}
build=${AN2_BUILD_DIR:?AN2_BUILD_DIR must name the build directory}
source_dir=${AN2_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
compare="$source_dir/bench/compare"
# A short path: Unix socket paths (pvmd's, an2d's) nest inside it and must stay < 108 bytes.
work=$(mktemp -d "/tmp/bsm.XXXXXX")
export TMPDIR="$work/t"      # compare's private directory goes here
mkdir -p "$TMPDIR"
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Processes started on our behalf carry $work in their environment (PVM_TMP, TMPDIR).
leftovers() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    grep -qsF "$work/t/an2-cmp" "/proc/$p/environ" 2>/dev/null && echo "$p"
  done
}
finish() {
  local stray; stray=$(leftovers)
  if [ -n "$stray" ]; then
    fail "processes left behind: $(for p in $stray; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
    kill -KILL $stray 2>/dev/null
  fi
  [ -z "$(ls -A "$TMPDIR")" ] || fail "files left in the private temp dir: $(ls -A "$TMPDIR")"
  [ -n "${KEEP:-}" ] || rm -rf "$work"
  [ $failures -eq 0 ] && echo "PASS: $case_name" || echo "$failures failure(s) in $case_name" >&2
  exit $((failures > 0))
}
trap finish EXIT

is_png() { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# check_csv FILE: header, ten columns, integers and positive figures on every row.
check_csv() {
  awk -F, '
    NR == 1 { if ($0 != "transport,bytes,reps,one_way_us,MBps,one_way_us_min,one_way_us_max,MBps_min,MBps_max,runs") { print "bad header: " $0; bad = 1 }; next }
    NF != 10 { print "row " NR " has " NF " columns: " $0; bad = 1; next }
    $1 == "" || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $3 < 1 || !($4 > 0) || !($5 > 0 || ($2 == 0 && $5 == 0)) {
      print "row " NR " is not well formed or not positive: " $0; bad = 1; next }
    $6 != "" && !($6 > 0 && $6 <= $4 && $7 >= $4) { print "row " NR " has an inconsistent spread: " $0; bad = 1 }
    END { if (NR < 2) { print "no rows"; bad = 1 }; exit bad }' "$1"
}

# Which transports of the list are built: their labels must all be in results.csv.
expected_labels() {
  while IFS='|' read -r name program need _; do
    name=$(echo $name); program=$(echo $program); need=$(echo $need)
    case "$name" in ''|'#'*) continue ;; esac
    [ -x "$build/bin/$program" ] && [[ "$need" != off:* ]] || continue
    [[ "$need" == an2d:* ]] && [ ! -x "$build/bin/an2d" ] && continue
    if [[ "$program" == pvmbench-* && "$need" == *+* ]]; then
      echo "$name"   # (injected faults: the main pattern only)
    elif [[ "$program" == pvmbench-* ]]; then
      printf '%s\n' "$name" "$name/inplace" "$name/psend" "$name/exchange" "$name/stream" "$name/cold"
    else
      echo "$name"
    fi
  done <"$source_dir/bench/transports.txt"
}

case "$case_name" in
compare)   # every program and available transport, a short run
  out="$work/out"
  "$compare" --tiny --rounds 2 --build "$build" --out "$out" >"$work/compare.log" 2>&1 ||
    { fail "compare --tiny exited $?"; cat "$work/compare.log" >&2; }
  awk -F, '$1 == "pvm-direct" && $10 != 2 { bad = 1 } END { exit bad }' "$out/results.csv" ||
    fail "pvm-direct rows do not fold two rounds"
  check_csv "$out/results.csv" || fail "results.csv is not well formed"
  for label in $(expected_labels); do
    grep -q "^$label," "$out/results.csv" || fail "no rows for available transport $label"
  done
  grep -q "^$(echo pvm-direct)," "$out/results.csv" || fail "stock PVM (pvm-direct) was not measured"
  for png in one-host raw physics variants; do
    is_png "$out/$png.png" || fail "$png.png is not a PNG image"
  done
  grep -q '^!\[one-host\](one-host.png)' "$out/summary.md" || fail "summary.md does not show one-host.png"
  grep -q "Protocol hierarchy" "$out/summary.md" || fail "summary.md lacks the protocol-hierarchy table"
  grep -q "| pvm-daemon | " "$out/summary.md" || fail "summary.md lacks the pvm-daemon row"
  grep -q "Machine:" "$out/summary.md" || fail "summary.md lacks the machine description"
  grep -Eq "^\| a system call \| [0-9.]+ µs \|" "$out/summary.md" &&
    grep -Eq "^\| a context switch between two processes \| [0-9.]+ µs \|" "$out/summary.md" &&
    grep -Eq "^\| a futex wake-up, one way \| [0-9.]+ µs \|" "$out/summary.md" ||
    fail "summary.md lacks the machine's physics (an2-physics)"
  awk -F, 'NR > 1 && $3 !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR < 2 }' "$out/line.csv" ||
    fail "line.csv has no cache line taken before the measurements"
  grep -q "One cache line between the two CPUs, taken before each of the run's" "$out/summary.md" ||
    fail "summary.md does not sum up the cache line over the run"
  [ ! -x "$build/bin/an2d" ] || grep -q "Under bit errors" "$out/summary.md" ||
    fail "summary.md lacks the table of goodput under bit errors"
  [ -x "$build/bin/an2-rawbench" ] || grep -q "aal5-raw: an2-rawbench is not built" "$out/summary.md" ||
    fail "summary.md does not report aal5-raw as skipped"
  grep -q "\.\.\. ok\|\. ok" "$work/compare.log" || fail "no progress shown"
  ;;
failure)   # a failing and a hanging transport make compare fail; a missing one is only skipped
  cat >"$work/transports.txt" <<'LIST'
good      | pvmbench-stock | - | --route direct                   | works
broken    | pvmbench-stock | - | --sizes 0                        | refuses its options
hanging   | pvmbench-stock | - | --route direct --trial-ms 600000 --sizes 1 | outlives its timeout
missing   | no-such-bench  | - |                                  | not built
planned   | pvmbench-stock | off:comes later |                 | listed, not run
LIST
  out="$work/out"
  "$compare" --tiny --build "$build" --out "$out" --transports "$work/transports.txt" --timeout 2 \
    >"$work/compare.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 130 ] || { fail "compare exited $rc despite failing transports"; cat "$work/compare.log" >&2; }
  check_csv "$out/results.csv" || fail "results.csv is not well formed"
  grep -q "^good," "$out/results.csv" || fail "the good transport was not measured after all"
  grep -q "^broken,\|^hanging," "$out/results.csv" && fail "rows from failed runs reached results.csv"
  grep -A4 "## FAILED" "$out/summary.md" | grep -q "broken" || fail "summary does not list broken as FAILED"
  grep -A4 "## FAILED" "$out/summary.md" | grep -q "hanging" || fail "summary does not list hanging as FAILED"
  grep -A3 "## Skipped" "$out/summary.md" | grep -q "missing: no-such-bench is not built" ||
    fail "summary does not list missing as skipped"
  grep -q "timed out" "$out/logs/hanging.log" || fail "the hanging run's log does not say it timed out"
  grep -A4 "## Skipped" "$out/summary.md" | grep -q "planned: comes later" || fail "planned transport not listed as skipped"
  grep -q "^planned," "$out/results.csv" && fail "a transport marked off was measured"
  ;;
interrupt)   # SIGINT in the middle of a run stops everything compare started (pvmd, slaves,
             # and an2-rawbench with the an2d it starts, when built)
  lists=("slow | pvmbench-stock | - | --route direct --trial-ms 600000 --sizes 1 | a run that takes long")
  [ -x "$build/bin/an2-rawbench" ] &&
    lists+=("slowraw | an2-rawbench | - | --rate unpaced --trial-ms 600000 --sizes 40 --runs 1 | a long raw run")
  for list in "${lists[@]}"; do
    echo "$list" >"$work/transports.txt"
    set -m   # so that the background compare does not ignore SIGINT
    "$compare" --tiny --build "$build" --out "$work/out" --transports "$work/transports.txt" \
      >"$work/compare.log" 2>&1 &
    pid=$!
    set +m
    for _ in $(seq 100); do   # until the run is well under way: pvmd or an2d, and the tasks
      [ "$(leftovers | wc -l)" -ge 4 ] && break
      sleep 0.1
    done
    [ "$(leftovers | wc -l)" -ge 3 ] || fail "${list%% *}: compare's processes did not get going"
    sleep 0.5
    kill -INT "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then fail "compare still runs 10 s after SIGINT"; kill -KILL "$pid"; fi
    wait "$pid"; rc=$?
    [ $rc -eq 130 ] || fail "${list%% *}: compare exited $rc after SIGINT, expected 130"
    grep -q "interrupted" "$work/compare.log" || fail "${list%% *}: compare did not say it was interrupted"
    stray=$(leftovers)
    [ -z "$stray" ] || fail "${list%% *}: left behind: $(for p in $stray; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "${list%% *}: left in the temp dir: $(ls -A "$TMPDIR")"
  done
  ;;
raw)   # a raw benchmark's rows (own labels, five columns, a 0-byte row) are taken in as documented
  fake="$work/build/bin"
  mkdir -p "$fake"
  ln -s "$build/bin/pvmbench-stock" "$fake/pvmbench-stock"
  cat >"$fake/an2-rawbench" <<'RAW'
#!/bin/sh
# stands in for build/bin/an2-rawbench: a table on stdout, CSV rows with --csv FILE
while [ $# -gt 0 ]; do [ "$1" = --csv ] && csv=$2; shift; done
echo "a table nobody parses"
printf 'transport,bytes,reps,one_way_us,MBps\n' >>"$csv"
printf 'aal5,0,1000,2.5,0\naal5,48,1000,2.75,17.45\naal5,65535,100,40.0,1638.4\n' >>"$csv"
printf 'aal5-stream,65535,100,30.0,2184.5\n' >>"$csv"
RAW
  chmod +x "$fake/an2-rawbench"
  cat >"$work/transports.txt" <<'LIST'
aal5-fake | an2-rawbench   | -        | --rate oc3     | a raw benchmark
needs-an2d| an2-rawbench   | an2d:oc3 |                | skipped: no an2d in this build
tcp       | pvmbench-stock | -        | --route direct | stock PVM
LIST
  out="$work/out"
  "$compare" --tiny --build "$work/build" --out "$out" --transports "$work/transports.txt" \
    >"$work/compare.log" 2>&1 || { fail "compare exited $?"; cat "$work/compare.log" >&2; }
  check_csv "$out/results.csv" || fail "results.csv is not well formed"
  grep -q "^aal5-fake,0,1000,2.5,0,,,,,$" "$out/results.csv" || fail "the 0-byte raw row is missing or not padded"
  [ "$(grep -c "^aal5-fake," "$out/results.csv")" -eq 3 ] || fail "raw rows not relabelled"
  grep -q "^aal5-fake/aal5-stream,65535," "$out/results.csv" || fail "a second raw series lost its own label"
  grep -q "| aal5-fake | 2.50 (0 B) | 1638 (65535 B) | – |" "$out/summary.md" ||
    fail "summary lacks the raw row's latency (nearest size to 8 B) or 64 KiB bandwidth (within 1%)"
  grep -q "needs-an2d: an2d is not built" "$out/summary.md" || fail "an2d-less transport not skipped"
  grep -q "a table nobody parses" "$out/logs/aal5-fake.log" || fail "the raw benchmark's stdout is not in its log"
  is_png "$out/others.png" || fail "others.png (transports outside the panels) is not a PNG image"
  ;;
usage)   # pvmbench refuses bad input clearly and fails fast without a pvmd
  bench="$build/bin/pvmbench-stock"
  for args in "--sizes 0" "--sizes 8,x" "--pattern sideways" "--runs 0" "--bogus" "--label a,b" "extra" \
              "--pattern stream --cold"; do
    # shellcheck disable=SC2086
    timeout 10 "$bench" $args >/dev/null 2>"$work/err"; rc=$?
    [ $rc -eq 2 ] && [ -s "$work/err" ] || fail "pvmbench $args: exit $rc, message '$(head -n 1 "$work/err")'"
  done
  timeout 10 "$bench" --help | grep -q -- "--pattern" || fail "pvmbench --help does not show the usage"
  # NetPIPE's sizes: every power of two and 3 bytes either side, inside the range
  [ "$("$bench" --min 1 --max 64 --perturb 3 --list-sizes | tr '\n' ' ')" = "1 2 4 5 7 8 11 13 16 19 29 32 35 61 64 " ] ||
    fail "pvmbench --list-sizes: $("$bench" --min 1 --max 64 --perturb 3 --list-sizes | tr '\n' ' ')"
  [ "$("$bench" --sizes 4096,8,8,1 --list-sizes | tr '\n' ' ')" = "1 8 4096 " ] || fail "--sizes is not sorted and unique"
  [ "$("$bench" --min 1 --max 4194304 --perturb 0 --list-sizes | wc -l)" -eq 23 ] || fail "1 B .. 4 MiB is not 23 powers of two"
  mkdir -p "$TMPDIR/no-pvmd"
  PVM_TMP="$TMPDIR/no-pvmd" PVM_VMID=none timeout 10 "$bench" --sizes 8 >/dev/null 2>"$work/err"; rc=$?
  [ $rc -eq 2 ] && grep -q "cannot join PVM" "$work/err" || fail "pvmbench without pvmd: exit $rc"
  rm -rf "$TMPDIR/no-pvmd"
  "$compare" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "compare --bogus did not exit 2"
  "$compare" --tiny --build "$work/nowhere" --out "$work/out" >/dev/null 2>&1
  [ $? -eq 2 ] || fail "compare without a build did not exit 2"
  ;;
*) echo "smoke.sh: unknown case $case_name" >&2; exit 2 ;;
esac
