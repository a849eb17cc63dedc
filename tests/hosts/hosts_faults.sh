#!/usr/bin/env bash
# Fault injection on the switch's links: with bit errors, then with cell loss, damaged PDUs
# between two hosts come back as CRC or length errors, every PDU delivered as good is intact,
# the switch counts what it injected, and a lost cell costs no credit (the VC keeps going).
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up sw alpha beta
check() { # check NAME OPTIONS...: some PDUs good, some damaged
    local name=$1
    shift
    fh_switch "$name" sw "$@"
    fh_an2d alpha sw:7000
    fh_an2d beta sw:7000
    fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
        "$TBIN/t_faults" 300 4096 | tee "$T/$name.out"
    read -r _ good _ damaged _ < "$T/$name.out"
    [[ $good -gt 0 && $damaged -gt 0 ]] || fail "$*: expected both good and damaged PDUs"
    "$BIN/an2stat" --switch "$T/$name.ctl" | tee "$T/$name.txt"
    "$BIN/an2d" --socket "$(fh_sock alpha)" --stop
    "$BIN/an2d" --socket "$(fh_sock beta)" --stop
    "$BIN/an2switch" --stop --pid-file "$T/$name.pid"
}
check ber --ber 2e-6 --fault-seed 7
awk '$2 == "host" { f += $13 } END { exit !(f > 0) }' "$T/ber.txt" || fail "no bit flipped"
check loss --cell-loss 0.002 --fault-seed 7
awk '$2 == "host" { l += $12 } END { exit !(l > 0) }' "$T/loss.txt" || fail "no cell lost"
echo "hosts_faults: ok"
