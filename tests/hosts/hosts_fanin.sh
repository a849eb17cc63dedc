#!/usr/bin/env bash
# Three senders on three hosts into one slow receiver on a fourth, across a trunk between two
# switches: every PDU arrives intact and in order, no cell is lost or dropped on any hop, the
# cells that went into every switch came out of it, and a second VC sharing the trunk and the
# receiver's link keeps flowing while the receiver holds the first ones back.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up swa swb alpha beta gamma rho xi
fh_switch s1 swa --id 1
fh_switch s2 swb --id 2 --trunk swa:7000
for h in alpha beta gamma xi; do fh_an2d "$h" swa:7000; done
fh_an2d rho swb:7000

fh_in rho env AN2_SOCKET="$(fh_sock rho)" AN2_SENDER_SOCKET_0="$(fh_sock alpha)" \
    AN2_SENDER_SOCKET_1="$(fh_sock beta)" AN2_SENDER_SOCKET_2="$(fh_sock gamma)" \
    AN2_FANIN_SLOW_US=3000 "$TBIN/t_fanin" > "$T/fanin.out" 2>&1 &
fanin=$!
# while the receiver is slow, the senders' credits run out on every hop: switch 2, before the
# receiver's link, holds cells of all three VCs; meanwhile another pair (xi on switch 1, a second
# endpoint on rho) exchanges over the same trunk and link
held() { # the VCs with cells held in switch 2
    "$BIN/an2stat" --switch "$T/s2.ctl" 2>/dev/null | awk '$3 == "<->" && $8 > 0 { n++ } END { print n + 0 }'
}
hosts_wait_for 300 eval '(( $(held) >= 3 )) || ! kill -0 $fanin 2>/dev/null' || fail "switch 2 never held cells of the 3 fan-in VCs"
kill -0 "$fanin" 2>/dev/null || { cat "$T/fanin.out" >&2; fail "fan-in ended before switch 2 held cells of its 3 VCs"; }
fh_in xi env AN2_SOCKET="$(fh_sock xi)" AN2_PEER_SOCKET="$(fh_sock rho)" "$TBIN/t_exchange" ||
    fail "the second VC did not flow beside the stalled ones"
kill -0 "$fanin" 2>/dev/null && echo "the exchange finished while the fan-in was still held back" ||
    echo "note: the fan-in finished before the exchange"
wait "$fanin" || { cat "$T/fanin.out" >&2; fail "fan-in across hosts"; }
cat "$T/fanin.out"
for s in s1 s2; do
    "$BIN/an2stat" --switch "$T/$s.ctl" | tee "$T/$s.txt"
    # every port: no drop, no loss; the switch: cells in == cells out, nothing buffered
    # port lines: PORT PEER(2 words) STATE RTT WINDOW RATE VCS CELLS_IN CELLS_OUT DROPS LOST ..
    awk '$2 == "host" || $2 == "switch" { cin += $9; cout += $10; if ($11 != 0 || $12 != 0) bad = 1 }
         $3 == "<->" { if ($8 != 0) bad = 1 }
         END { exit !(cin > 0 && cin == cout && !bad) }' "$T/$s.txt" ||
        fail "$s: cells lost, dropped, or still held"
done
echo "hosts_fanin: ok"
