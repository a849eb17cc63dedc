#!/usr/bin/env bash
# Names looked up across hosts; PDUs of every awkward size both ways between two hosts, through one switch (IPv4 and IPv6
# links), through two switches joined by a trunk, and through three in a line (the first
# learns the route to the last from the middle one): every byte checked, no cell dropped on
# any hop, and the switches' capture read back by tshark shows the PDUs on their VCIs.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up swa swb swc alpha beta

# one switch; alpha's link over IPv4, beta's over IPv6; a name's look-up waits 3 s for its
# holder (t_remote_names registers one while the look-up is under way: on a loaded machine
# the default 300 ms can pass first)
fh_switch s1 swa --capture "$T/s1.pcap.gz"
fh_an2d alpha "swa:7000" --lookup-ms 3000
fh_an2d beta "[$(hosts_ip6 swa)]:7000" --lookup-ms 3000
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
    "$TBIN/t_exchange" || fail "exchange through one switch"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
    "$TBIN/t_remote_names" || fail "names across hosts"
"$BIN/an2stat" --switch "$T/s1.ctl" | tee "$T/s1.txt"
# port lines: PORT PEER(2 words) STATE RTT WINDOW RATE VCS CELLS_IN CELLS_OUT DROPS LOST FLIPPED
awk '$2 == "host" { n++; if ($4 != "up" || $9 == 0 || $11 != 0 || $12 != 0) bad = 1 }
     END { exit !(n == 2 && !bad) }' "$T/s1.txt" || fail "switch ports: not both up, no cells, or drops"
AN2_SOCKET=$(fh_sock alpha) "$BIN/an2stat" | tee "$T/alpha.txt"
grep -q "^host 1\.[0-9]* of the fabric (47\.0005\..*); uplink to the switch up" "$T/alpha.txt" ||
    fail "alpha's an2stat does not show its address and uplink"

# the capture: the 28 PDUs (14 each way), each received once by the switch
"$BIN/an2switch" --stop --pid-file "$T/s1.pid" || fail "stopping s1"
if command -v tshark >/dev/null; then
    tshark -r "$T/s1.pcap.gz" -T fields -e atm.vpi -e atm.vci 2>/dev/null > "$T/cap.txt"
    # the caller's host allocates its link's VCI from the upper half, the switch the callee's
    # from the lower: 14 PDUs on each
    awk '$1 == 0 && $2 >= 32768 { up++ } $1 == 0 && $2 >= 32 && $2 < 32768 { low++ }
         END { print up + low " PDUs captured"; exit !(up == 14 && low == 14 && NR == 28) }' \
        "$T/cap.txt" || fail "capture: $(wc -l < "$T/cap.txt") PDUs, expected 14 + 14 on VPI 0"
else
    echo "tshark not installed: capture not read back"
fi
"$BIN/an2d" --socket "$(fh_sock alpha)" --stop
"$BIN/an2d" --socket "$(fh_sock beta)" --stop

# two switches: alpha on s2 (switch 2), beta on s3 (switch 3), s3 trunked to s2
fh_switch s2 swa --id 2
fh_switch s3 swb --id 3 --trunk swa:7000
fh_an2d alpha swa:7000
fh_an2d beta swb:7000
fh_switch_shows s3 "switch 2 *up" || fail "trunk s3 -> s2 not up"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
    "$TBIN/t_exchange" || fail "exchange through two switches"
for s in s2 s3; do
    "$BIN/an2stat" --switch "$T/$s.ctl" | tee "$T/$s.txt"
    awk '$2 == "host" || $2 == "switch" { n++; if ($4 != "up" || $9 == 0 || $11 != 0) bad = 1 }
         END { exit !(n == 2 && !bad) }' "$T/$s.txt" || fail "$s: a port down, idle or dropping"
done
"$BIN/an2d" --socket "$(fh_sock alpha)" --stop
"$BIN/an2d" --socket "$(fh_sock beta)" --stop

# three switches in a line: s2 - s3 - s5; s2 learns that switch 5 is two trunks away
fh_switch s5 swc --id 5 --trunk swb:7000
fh_an2d alpha swa:7000
fh_an2d beta swc:7000
fh_switch_shows s2 "route to switch 5: port [0-9]*, 2 trunks away" ||
    fail "s2 learnt no route to switch 5"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
    "$TBIN/t_exchange" || fail "exchange through three switches"
echo "hosts_sar: ok"
