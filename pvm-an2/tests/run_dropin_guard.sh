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
	pvmd "$dir/hostfile" </dev/null >"$dir/out" 2>&1 &
pid=$!
# until it has exited, or has run (written its address file)
for i in $(seq 600); do
	kill -0 "$pid" 2>/dev/null || break
	ls "$dir"/pvmd.* >/dev/null 2>&1 && break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	how="no address file, not ended after 60 s"
	ls "$dir"/pvmd.* >/dev/null 2>&1 && how="its address file written"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	cat "$dir/out"
	echo "FAIL: pvmd ran on the drop-in ($how)"
	exit 1
fi
wait "$pid"
rc=$?
cat "$dir/out"
[ "$rc" -ne 0 ] || { echo "FAIL: pvmd ran on the drop-in (rc $rc)"; exit 1; }
grep -q "refusing to run inside pvmd" "$dir/out" || { echo "FAIL: no clear message"; exit 1; }
rm -f "$dir/out" "$dir/hostfile"
[ -z "$(ls -A "$dir")" ] || { echo "FAIL: files left: $(ls -A "$dir")"; exit 1; }
echo "ok: pvmd refuses the drop-in"
