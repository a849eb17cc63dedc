#!/usr/bin/env bash
# Runs the whole test suite twice from scratch: a plain build with warnings as errors, then
# the same under AddressSanitizer and UndefinedBehaviorSanitizer.
# Usage: scripts/test.sh [--fast]   (--fast: only the plain build)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

jobs=$(nproc)
run_suite() {   # run_suite BUILD_DIR cmake-args...
  local dir=$1; shift
  cmake -S . -B "$dir" -DAN2_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure --timeout 300 -j 2
}

status=0
echo "=== plain build (warnings as errors)"
run_suite build || status=1
if [ "${1:-}" != "--fast" ]; then
  echo "=== AddressSanitizer + UndefinedBehaviorSanitizer"
  run_suite build-asan -DAN2_SANITIZE=ON || status=1
fi
exit $status
