#!/usr/bin/env bash
# an2d killed outright: a task asleep in an2_wait gets -ECONNRESET rather than hanging, and a
# new an2d starts over the dead one's stale socket, pid and lock files.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_orphan" > "$T/orphan.txt" &
KIDS+=($!)
for _ in $(seq 100); do grep -q waiting "$T/orphan.txt" && break; sleep 0.05; done
sleep 0.1 # well into its sleep
kill -KILL "$AN2D_PID"
wait "$AN2D_PID" || true
AN2D_PID=
for _ in $(seq 50); do kill -0 "${KIDS[0]}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${KIDS[0]}" 2>/dev/null && fail "the orphaned task still waits 5 s after an2d died"
wait "${KIDS[0]}" || fail "the orphaned task did not end cleanly"
cat "$T/orphan.txt"
[ -e "$T/an2d.sock" ] || fail "expected the killed an2d's stale socket"
start_an2d
"$TBIN/t_pingpong" 10 100
stop_an2d
echo "orphan: ok"
