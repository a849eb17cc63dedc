#!/usr/bin/env bash
# With no an2d, the first tasks to open the device start one (daemonised), even two at once;
# t_autostart stops it and reaps it (it is their subreaper).
. "$(dirname "$0")/fabric_lib.sh"
unset AN2_NO_AUTOSTART
export AN2D_PATH=$BIN/an2d
export AN2D_KEEP_LOG=1   # read below: a clean stop would take it
"$TBIN/t_autostart"
[ "$(grep -c "serving at" "$T/an2d.log")" -eq 1 ] || fail "not exactly one an2d served"
for f in "$T"/an2d.sock "$T"/an2d.pid "$T"/an2d.lock; do
    [ ! -e "$f" ] || fail "an2d left $f behind"
done
echo "autostart: ok"
