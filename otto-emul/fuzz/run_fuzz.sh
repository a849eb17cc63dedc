#!/bin/sh
# run_fuzz.sh FUZZER SECONDS — runs one of otto-emul's fuzz targets for a fixed time in a private
# directory; a crashing input is printed (base64) into the test log, then everything is removed.
set -u
fuzzer=$1
seconds=$2
dir=$(mktemp -d "${AN2_BUILD_DIR:-/tmp}/otto-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir "$dir/corpus"
"$fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$dir/" "$dir/corpus" 2>"$dir/log"
rc=$?
tail -n 3 "$dir/log"
if [ "$rc" -ne 0 ]; then
    cat "$dir/log" >&2
    for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*; do
        [ -e "$f" ] || continue
        echo "reproducer $(basename "$f") (base64):" >&2
        base64 "$f" >&2
    done
fi
exit "$rc"
