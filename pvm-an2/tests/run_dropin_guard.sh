#!/usr/bin/env bash
# Debian's pvmd must refuse to start on the drop-in library, loudly and leaving nothing.
set -uo pipefail
dropin=$1
base=${AN2_BUILD_DIR:-/tmp}/test-tmp
mkdir -p "$base"
dir=$(mktemp -d "$base/guard.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "* ep=/usr/bin" > "$dir/hostfile"
# sanitizer build: the instrumented drop-in needs its runtime preloaded to load at all
preload=${AN2_ASAN_RUNTIME:-}
PVM_TMP=$dir PVM_VMID=guard$$ PVM_ROOT=/usr/lib/pvm3 LD_LIBRARY_PATH=$dropin LD_PRELOAD=$preload \
	timeout 10 pvmd "$dir/hostfile" </dev/null >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { echo "FAIL: pvmd ran on the drop-in (rc $rc)"; exit 1; }
grep -q "refusing to run inside pvmd" "$dir/out" || { echo "FAIL: no clear message"; exit 1; }
rm -f "$dir/out" "$dir/hostfile"
[ -z "$(ls -A "$dir")" ] || { echo "FAIL: files left: $(ls -A "$dir")"; exit 1; }
echo "ok: pvmd refuses the drop-in"
