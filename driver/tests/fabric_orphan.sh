#!/usr/bin/env bash
# an2d killed outright: a task asleep in an2_wait gets -ECONNRESET rather than hanging, and a
# new an2d starts over the dead one's stale socket, pid and lock files.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
# no yielding first: once it has said "waiting", the task's only sleep is an2_wait's futex
AN2_YIELD_US=0 "$TBIN/t_orphan" > "$T/orphan.txt" &
KIDS+=($!)
wait_for "t_orphan to say it waits" grep -q waiting "$T/orphan.txt"
wait_for "t_orphan to sleep in an2_wait" proc_state_is "${KIDS[0]}" S
kill -KILL "$AN2D_PID"
wait "$AN2D_PID" || true
AN2D_PID=
wait_for "the orphaned task to end after an2d died" eval '! kill -0 "${KIDS[0]}" 2>/dev/null'
wait "${KIDS[0]}" || fail "the orphaned task did not end cleanly"
cat "$T/orphan.txt"
[ -e "$T/an2d.sock" ] || fail "expected the killed an2d's stale socket"
start_an2d
"$TBIN/t_pingpong" 10 100
stop_an2d
echo "orphan: ok"
