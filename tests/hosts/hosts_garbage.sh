#!/usr/bin/env bash
# Hostile links into an2switch: garbage, an oversized record, cells before HELLO, a record cut
# short, a HELLO with values out of range, and a peer that says HELLO and then nothing. Each
# costs only its own link (dropped, with the reason logged); the switch lives on and a VC
# between two hosts keeps working throughout.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up sw alpha beta mallory
fh_switch s1 sw
fh_an2d alpha sw:7000
fh_an2d beta sw:7000

# send NAME BYTES [WHY]: mallory opens a link, writes the bytes (printf escapes) and holds the
# link open until the switch logs one more "link down: WHY" line (any reason if WHY is empty;
# up to 30 s), then closes it; "-" for WHY: closes at once
downs() { grep -c "link down: $1" "$T/s1.log" || :; }
send() {
    local name=$1 why=${3:-} st=0
    # (the switch may drop the link while we write: that is no failure of ours)
    # shellcheck disable=SC2016 # expanded by the inner shell
    fh_in mallory /bin/bash -c 'trap "" PIPE; exec 3<>/dev/tcp/sw/7000 || exit 1
        printf "$1" >&3 2>/dev/null
        [[ $2 == - ]] && exit 0
        for ((i = 0; i < 300; i++)); do
            (($(grep -c "link down: $2" "$3" || :) > $4)) && exit 0
            sleep 0.1
        done
        exit 2' _ "$2" "$why" "$T/s1.log" "$(downs "$why")" || st=$?
    ((st != 1)) || fail "$name: could not reach the switch"
    ((st == 0)) || fail "$name: the switch did not drop the link (no \"link down: $why\" in its log within 30 s)"
}
exchange() {
    fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
        "$TBIN/t_exchange" >/dev/null || fail "exchange after: $1"
}
# a HELLO from a host: magic AN2F, version 1, role 1, switch 0, addr 0, window W, keepalive K
hello() { printf '\\x01\\x00\\x00\\x1c\\x41\\x4e\\x32\\x46\\x00\\x01\\x00\\x01%s%s%s%s%s' \
    '\x00\x00\x00\x00' '\x00\x00\x00\x00' "$1" "$2" '\x00\x01\x00\x00'; }

# (the switch logs at most 5 link losses per 10 s: the one whose line is not checked is last)
send silent "$(hello '\x00\x00\x00\x40' '\x00\x00\x00\xc8')" "silent past its keepalive"
exchange silent
send garbage "$(head -c 600 /dev/urandom | od -An -v -tx1 | tr -s ' \n' ' ' | sed 's/ \([0-9a-f][0-9a-f]\)/\\x\1/g')"
exchange garbage
send oversized '\x02\x00\xff\xff'"$(printf '\\x00%.0s' $(seq 64))" "a malformed record"
exchange oversized
send "cells before HELLO" '\x02\x00\x00\x35'"$(printf '\\x00%.0s' $(seq 53))" "a record before HELLO"
exchange "cells before HELLO"
send "window 0" "$(hello '\x00\x00\x00\x00' '\x00\x00\x00\xc8')" "HELLO with values out of range"
exchange "window 0"
send "cut short" '\x01\x00\x00\x1c\x41\x4e\x32\x46\x00\x01' -
exchange "cut short"

kill -0 "$(cat "$T/s1.pid")" || fail "the switch died"
for why in "a malformed record" "a record before HELLO" "HELLO with values out of range" \
           "silent past its keepalive"; do
    grep -q "link down: $why" "$T/s1.log" || fail "the switch's log does not say: $why"
done
grep -c "link down" "$T/s1.log"
"$BIN/an2stat" --switch "$T/s1.ctl"
echo "hosts_garbage: ok"
