#!/usr/bin/env bash
# A link peer that says HELLO, calls an endpoint with a large credit, and then never reads
# while that endpoint floods the VC toward it: the switch drops that link alone, within three
# keepalive periods of its output stopping, with one clear log line; the flooding sender gets
# PEER_GONE; meanwhile the switch idles (little CPU time) and another VC through it flows.
. "$(dirname "$0")/fabric_hosts_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
fh_up sw alpha beta gamma mallory
KEEPALIVE_MS=1000   # the switch's: a peer not reading for 3 s is dropped
fh_switch s1 sw --keepalive-ms "$KEEPALIVE_MS"
for h in alpha beta gamma; do fh_an2d "$h" sw:7000; done

ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$T/s1.pid")/stat"; }
first_ep() { awk '$1 == "ep" { print $2; exit }' "$1" 2>/dev/null; }
has_ep() { [[ -n $(first_ep "$1") ]]; }

# the sender on alpha, waiting for the peer's endpoint id on a fifo
mkfifo "$T/flood.in"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_FLOOD_SECONDS=30 "$TBIN/t_flood" \
    < "$T/flood.in" > "$T/flood.out" 2>&1 &
flood=$!
exec 5>"$T/flood.in"
hosts_wait_for 50 has_ep "$T/flood.out" || { cat "$T/flood.out" >&2; fail "t_flood did not start"; }

# the fake peer (on mallory) calls it, then stops reading; it holds its end for 20 s at most
fh_in mallory python3 "$FH_HERE/fake_link_peer.py" sw 7000 "$(first_ep "$T/flood.out")" 20 \
    > "$T/fake.out" 2>&1 &
fake=$!
hosts_wait_for 50 has_ep "$T/fake.out" || { cat "$T/fake.out" >&2; fail "the fake peer did not call"; }
fh_switch_shows s1 "<->" || fail "the fake peer's SETUP made no call in the switch"
sleep 0.3 # its SETUP reaches alpha's an2d, which holds it for the task's request
start=$(date +%s%N)
echo "$(first_ep "$T/fake.out")" >&5
exec 5>&-

# the flood fills the switch's output to the fake peer within a second; then nothing moves
sleep 1
cpu0=$(ticks)
sleep 1.5
cpu1=$(ticks)
grep -q "stopped reading" "$T/s1.log" && fail "the link was dropped before 2.5 s (keepalive ${KEEPALIVE_MS} ms)"
echo "switch CPU over 1.5 s of the stall: $((cpu1 - cpu0)) ticks"
(( cpu1 - cpu0 < 30 )) || fail "the switch used $((cpu1 - cpu0)) ticks in 1.5 s of a stalled link: it spins"
# another VC through the same switch, beside the stalled link
fh_in beta env AN2_SOCKET="$(fh_sock beta)" AN2_PEER_SOCKET="$(fh_sock gamma)" \
    "$TBIN/t_exchange" > /dev/null || fail "a VC between two other hosts did not flow"
grep -q "stopped reading" "$T/s1.log" && echo "note: the exchange ended after the drop" ||
    echo "the exchange between beta and gamma finished while the stalled link was still up"

wait "$flood" || { cat "$T/flood.out" >&2; fail "the flooding sender got no PEER_GONE"; }
cat "$T/flood.out"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
# dropped within three keepalive periods of the output stopping (plus the second it took to
# fill and a margin for a busy machine)
(( elapsed_ms < 3 * KEEPALIVE_MS + 4000 )) || fail "the stalled link went only after $elapsed_ms ms"
[[ $(grep -c "link down: the other end stopped reading" "$T/s1.log") == 1 ]] ||
    fail "the switch's log does not say once that the other end stopped reading"
[[ $(grep -c "link down" "$T/s1.log") == 1 ]] || fail "another link than the stalled one went down"
lines=$(wc -l < "$T/s1.log")
(( lines < 15 )) || fail "the switch logged $lines lines"
kill -0 "$(cat "$T/s1.pid")" || fail "the switch died"
fh_in beta env AN2_SOCKET="$(fh_sock beta)" AN2_PEER_SOCKET="$(fh_sock gamma)" \
    "$TBIN/t_exchange" > /dev/null || fail "exchange after the drop"
"$BIN/an2stat" --switch "$T/s1.ctl"
kill "$fake" 2>/dev/null || :
wait "$fake" 2>/dev/null || :
echo "hosts_stuck_peer: ok"
