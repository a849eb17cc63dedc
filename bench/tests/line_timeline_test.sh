#!/usr/bin/env bash
# bench-line-timeline: the cache line taken before every measurement (line.csv) is summed up
# under the physics: its range, and the measurements begun while it took more than three times
# its lowest (a host that placed the virtual CPUs apart), or none.
set -uo pipefail
bench=${AN2_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/bench
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

out=$(printf 'round,label,ns\n1,pvm-an2,30\n1,pvm-direct,32\n2,pvm-an2,170\n2,pvm-direct,89\n' |
      awk -F, -f "$bench/line_timeline.awk")
grep -qF "each of the run's 4 measurements: 30–170 ns one way" <<<"$out" || fail "range: $out"
grep -qF "1 of the measurements began" <<<"$out" && grep -qF ": pvm-an2 (round 2)." <<<"$out" ||
  fail "the far measurement (170 ns, over three times 30) is not named alone: $out"
out=$(printf 'round,label,ns\n1,a,30\n1,b,89\n' | awk -F, -f "$bench/line_timeline.awk")
grep -qF "None took more than three times the lowest." <<<"$out" || fail "no far one: $out"
out=$(printf 'round,label,ns\n' | awk -F, -f "$bench/line_timeline.awk")
[ -z "$out" ] || fail "a timeline without samples gave: $out"
out=$(printf 'round,label,ns\n1,a,oops\n1,b,40\n' | awk -F, -f "$bench/line_timeline.awk")
grep -qF "each of the run's 1 measurements: 40–40 ns" <<<"$out" || fail "a bad sample counted: $out"
[ $failures -eq 0 ] && echo "bench-line-timeline: ok"
exit $((failures > 0))
