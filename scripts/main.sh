#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the side-by-side
# comparison of PVM over AN2 against TCP PVM (bench/compare), then prints its summary.
# Usage: scripts/main.sh [--full] [--out DIR] [--build DIR]
#   --full       the full sweep (NetPIPE sizes with perturbations; takes longer)
#   --out DIR    results folder (default: results/<UTC date and time>)
#   --build DIR  build directory (default: build)
# bench/compare runs pvmd (and an2d where needed) in a private temp dir and stops all it
# started, also on Ctrl-C; this script starts nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=--quick out="" build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --full) mode=--full ;;
    --quick) mode=--quick ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --build) build=${2:?--build needs a directory}; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "main.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$out" ] || out="results/$(date -u +%Y%m%dT%H%M%SZ)"

echo "== dependencies"
scripts/deps.sh
echo "== build ($build)"
cmake -S . -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "== comparison ($mode) -> $out"
status=0
bench/compare "$mode" --apps --build "$build" --out "$out" || status=$?
[ $status -eq 130 ] && exit 130   # interrupted: compare has already stopped what it started
if [ -s "$out/summary.md" ]; then
  echo
  cat "$out/summary.md"
  echo
  echo "Results: $out/summary.md, $out/results.csv, $out/one-host.png, $out/two-hosts.png"
fi
exit $status
