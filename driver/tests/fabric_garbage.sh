#!/usr/bin/env bash
# Garbage and truncated control requests: an2d logs, drops that client only, keeps serving.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_garbage"
log_has "garbage request" || fail "an2d did not log the garbage"
log_has "protocol 1, not 77" || fail "an2d did not log the version mismatch"
[ "$(id -u)" -ne 0 ] || log_has "uid 65534 is not an2d.s uid" || fail "an2d did not log the other uid"
kill -0 "$AN2D_PID" || fail "an2d died"
stop_an2d
echo "garbage: ok"
