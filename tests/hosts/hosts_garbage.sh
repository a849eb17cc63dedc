#!/usr/bin/env bash
# Hostile links into an2switch from a peer that holds the fabric's key (strangers are refused
# before this: hosts_auth): garbage, an oversized record, cells before HELLO, a record cut
# short, a HELLO with values out of range, and a peer that says HELLO and then nothing. Each
# costs only its own link (dropped, with the reason logged); the switch lives on and a VC
# between two hosts keeps working throughout.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up sw alpha beta mallory
fh_switch s1 sw
fh_an2d alpha sw:7000
fh_an2d beta sw:7000

# send NAME HEX: mallory authenticates with the fabric's key (so that what follows reaches the
# link's reader), writes the bytes and waits until the switch drops the link (up to 30 s)
send() {
    local out
    out=$(fh_in mallory python3 "$FH_HERE/link_peer.py" sw 7000 raw "$2" 2>&1) ||
        fail "$1: the switch did not drop the link: $out"
}
exchange() {
    fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
        "$TBIN/t_exchange" >/dev/null || fail "exchange after: $1"
}
# a HELLO from a host: magic AN2F, version 2, role 1, switch 0, addr 0, window W, keepalive K
hello() { echo "0100001c414e3246000200010000000000000000${1}${2}00010000"; }

# (the switch logs at most 5 link losses per 10 s: the one whose line is not checked is last)
send silent "$(hello 00000040 000000c8)"
exchange silent
send garbage "$(head -c 600 /dev/urandom | od -An -v -tx1 | tr -d ' \n')"
exchange garbage
send oversized "0200ffff$(printf '00%.0s' $(seq 64))"
exchange oversized
send "cells before HELLO" "02000035$(printf '00%.0s' $(seq 53))"
exchange "cells before HELLO"
send "window 0" "$(hello 00000000 000000c8)"
exchange "window 0"
send "cut short" "0100001c414e32460002"
exchange "cut short"

kill -0 "$(cat "$T/s1.pid")" || fail "the switch died"
for why in "a malformed record" "a record before HELLO" "HELLO with values out of range" \
           "silent past its keepalive"; do
    grep -q "link down: $why" "$T/s1.log" || fail "the switch's log does not say: $why"
done
grep -c "link down" "$T/s1.log"
"$BIN/an2stat" --switch "$T/s1.ctl"
echo "hosts_garbage: ok"
