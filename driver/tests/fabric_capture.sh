#!/usr/bin/env bash
# `an2d --capture` of a short exchange, read back by tshark: the PDUs on their VPI/VCI with
# the payload sent.
. "$(dirname "$0")/fabric_lib.sh"
command -v tshark >/dev/null || fail "tshark is not installed (scripts/deps.sh)"
start_an2d --capture "$T/cap.pcap.gz"
"$TBIN/t_pingpong" 3 200 "AN2-CAPTURE-CHECK " | tee "$T/pp.txt"
stop_an2d
gzip -t "$T/cap.pcap.gz" || fail "the capture is not gzip"
tshark -r "$T/cap.pcap.gz" -T fields -e frame.number -e atm.vpi -e atm.vci 2>"$T/tshark.err" \
    | tee "$T/fields.txt" || { cat "$T/tshark.err"; fail "tshark cannot read the capture"; }
[ "$(wc -l < "$T/fields.txt")" -eq 6 ] || fail "expected 6 PDUs (3 round trips)"
# every PDU on VPI 0, on one of the two VCIs of the VC, both directions present
vcis=$(awk '$2 != 0 { bad = 1 } { print $3 } END { exit bad }' "$T/fields.txt" | sort -u | wc -l)
[ "$vcis" -eq 2 ] || fail "expected the PDUs on 2 VCIs, got $vcis"
tshark -r "$T/cap.pcap.gz" -x 2>/dev/null > "$T/hex.txt"
grep -q "AN2-CAPTURE-CHEC" "$T/hex.txt" || fail "the payload is not in the capture"
echo "capture: ok"
