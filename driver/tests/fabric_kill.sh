#!/usr/bin/env bash
# SIGKILL of a task in mid-transfer: its peer gets PEER_GONE, an2stat shows everything given
# back, and an2d goes on serving: a fresh exchange afterwards works.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_kill"
log_has "closed: connection closed" || fail "an2d did not log the death"
"$TBIN/t_exchange"
"$BIN/an2stat" --summary | grep -q "endpoints 0 vcs 0 routes 0 pending 0" || fail "leftovers"
stop_an2d
echo "kill: ok"
