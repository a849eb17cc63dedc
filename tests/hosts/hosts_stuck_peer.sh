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

ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$T/s1.pid")/stat"; }
first_ep() { awk '$1 == "ep" { print $2; exit }' "$1" 2>/dev/null; }
has_ep() { [[ -n $(first_ep "$1") ]]; }

# beta and gamma attach first, then the fake peer (on mallory), then alpha: the switch numbers
# hosts by port, so the fake's endpoint is below alpha's, and its call follows the fabric's rule
# (the lower endpoint calls, the higher one's an2d waits for the SETUP)
for h in beta gamma; do fh_an2d "$h" sw:7000; done
mkfifo "$T/fake.in"
# the fake peer: HELLO, its endpoint id, then it calls the endpoint it reads on stdin and stops
# reading; it holds its end for 20 s at most
fh_in mallory python3 "$FH_HERE/link_peer.py" sw 7000 stuck - 20 < "$T/fake.in" > "$T/fake.out" 2>&1 &
fake=$!
exec 6>"$T/fake.in"
hosts_wait_for 100 has_ep "$T/fake.out" || { cat "$T/fake.out" >&2; fail "the fake peer did not say HELLO"; }
fh_an2d alpha sw:7000

# the sender on alpha, waiting for the peer's endpoint id on a fifo
mkfifo "$T/flood.in"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_FLOOD_SECONDS=30 "$TBIN/t_flood" \
    < "$T/flood.in" > "$T/flood.out" 2>&1 &
flood=$!
exec 5>"$T/flood.in"
hosts_wait_for 100 has_ep "$T/flood.out" || { cat "$T/flood.out" >&2; fail "t_flood did not start"; }
(( $(first_ep "$T/fake.out") < $(first_ep "$T/flood.out") )) ||
    fail "the fake peer's endpoint $(first_ep "$T/fake.out") is not below alpha's $(first_ep "$T/flood.out")"

# the sender asks for the VC, then the fake calls it (a SETUP no task has asked for is held
# only briefly, and the fake, unlike an an2d, never calls again); no flood before this
start=$(date +%s%N)
echo "$(first_ep "$T/fake.out")" >&5
exec 5>&-
echo "$(first_ep "$T/flood.out")" >&6
exec 6>&-
hosts_wait_for 100 grep -q '^called' "$T/fake.out" || { cat "$T/fake.out" >&2; fail "the fake peer did not call"; }
fh_switch_shows s1 "<->" || fail "the fake peer's SETUP made no call in the switch"

# the flood fills the switch's output to the fake peer; then nothing moves: the call's cells out
# stand still (two looks 0.3 s apart) with cells held in the switch
call() { "$BIN/an2stat" --switch "$T/s1.ctl" 2>/dev/null | awk '$3 == "<->" { print $7, $8; exit }'; }
stalled() {
    local a b
    a=$(call)
    sleep 0.3
    b=$(call)
    [[ -n $a && $a == "$b" ]] && ((${b#* } > 0))
}
hosts_wait_for 100 stalled || fail "the flood toward the fake peer never stalled in the switch: $(call)"
cpu0=$(ticks)
sleep 1.5 # (a window to measure the switch's CPU time in)
cpu1=$(ticks)
echo "switch CPU over 1.5 s of the stall: $((cpu1 - cpu0)) ticks"
(( cpu1 - cpu0 < 30 )) || fail "the switch used $((cpu1 - cpu0)) ticks in 1.5 s of a stalled link: it spins"
# another VC through the same switch, beside the stalled link
fh_in beta env AN2_SOCKET="$(fh_sock beta)" AN2_PEER_SOCKET="$(fh_sock gamma)" \
    "$TBIN/t_exchange" > /dev/null || fail "a VC between two other hosts did not flow"
grep -q "stopped reading" "$T/s1.log" && echo "note: the exchange ended after the drop" ||
    echo "the exchange between beta and gamma finished while the stalled link was still up"

wait "$flood" || { cat "$T/flood.out" >&2; fail "the flooding sender got no PEER_GONE"; }
cat "$T/flood.out"
# when the switch dropped the link (its log's time of day, UTC), in ms after start: the output
# stopped after start, so not before three keepalive periods; and within three keepalive
# periods of the output stopping (plus the second it takes to fill and a margin for a busy
# machine); the sender's own clock says the same of its PEER_GONE
drop=$(awk '/link down: the other end stopped reading/ { split($1, t, ":"); print int((t[1] * 3600 + t[2] * 60 + t[3]) * 1000); exit }' "$T/s1.log")
[[ -n $drop ]] || fail "the switch's log has no time for the drop"
drop_ms=$(( (drop - start / 1000000 % 86400000 + 86400000) % 86400000 ))
echo "the switch dropped the stalled link $drop_ms ms after the flood could begin"
(( drop_ms >= 3 * KEEPALIVE_MS )) || fail "the link was dropped after $drop_ms ms, before 3 keepalive periods (${KEEPALIVE_MS} ms)"
(( drop_ms < 3 * KEEPALIVE_MS + 4000 )) || fail "the stalled link went only after $drop_ms ms"
gone_s=$(sed -nE 's/.*PEER_GONE after ([0-9.]+) s.*/\1/p' "$T/flood.out")
awk -v s="$gone_s" -v lim=$((3 * KEEPALIVE_MS + 4000)) 'BEGIN { exit !(s != "" && s * 1000 < lim) }' ||
    fail "the sender got PEER_GONE only after ${gone_s:-?} s"
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
