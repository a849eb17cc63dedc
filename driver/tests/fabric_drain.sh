#!/usr/bin/env bash
# A VC closed with cells still in the switch: they reach a receiver that posts buffers later,
# then PEER_GONE; a receiver that closes instead takes the route down with them; a sender that
# leaves with PDUs still queued in its controller lingers until they have all gone out.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_drain"
"$TBIN/t_drain" cancel
"$TBIN/t_drain" linger
"$BIN/an2stat" --summary | grep -q "endpoints 0 vcs 0 routes 0 pending 0" || fail "leftovers"
stop_an2d
echo "drain: ok"
