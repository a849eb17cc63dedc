#!/usr/bin/env bash
# A VC closed right after sending, across hosts, through one switch and through two: every
# PDU sent before the close reaches the (slow) receiver intact before PEER_GONE, the switches
# held the RELEASE for the buffered cells and dropped none. With a receiver that takes
# nothing, the release goes on anyway after the per-hop bound, logged once per hop, and the
# switch does not spin meanwhile.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up swa swb alpha beta
# every hop's window fixed at 2048 cells (not derived from round trips, which a loaded
# machine stretches): the stalled case fills each hop as planned
W=(--vc-credits 2048)

# tail SWITCHES...: the slow receiver on alpha gets all; each switch held >= 1 RELEASE, gave
# up none, dropped nothing, and let out every cell it took in
tail_ok() {
    fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
        "$TBIN/t_release_tail" || fail "release tail through $*"
    for s in "$@"; do
        "$BIN/an2stat" --switch "$T/$s.ctl" | tee "$T/$s.txt"
        grep -q "^releases held for buffered cells [1-9][0-9]*, given up 0 " "$T/$s.txt" ||
            fail "$s: the RELEASE was not held for buffered cells, or a drain was given up"
        # port lines: PORT PEER(2 words) STATE RTT WINDOW RATE VCS CELLS_IN CELLS_OUT DROPS ..
        awk '$2 == "host" || $2 == "switch" { cin += $9; cout += $10; if ($11 != 0) bad = 1 }
             END { exit !(cin > 8000 && cin == cout && !bad) }' "$T/$s.txt" ||
            fail "$s: cells dropped, or cells in != cells out"
    done
}

# stalled SWITCH...: nothing posted; the cells fill the receiver's host and every switch on the
# way: PEER_GONE comes anyway, each switch and the receiver's an2d gave up once and logged it
# once, and the switches used little CPU while they waited
stalled_ok() {
    local s pid t0 t1
    declare -A cpu0
    for s in "$@"; do
        pid=$(cat "$T/$s.pid")
        cpu0[$s]=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    done
    fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
        "$TBIN/t_release_tail" stalled || fail "stalled release through $*"
    for s in "$@"; do
        pid=$(cat "$T/$s.pid")
        t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
        # the wait spans >= 2 s; a switch that spun would burn most of it (clock ticks: 1/100 s)
        (( t1 - ${cpu0[$s]} < 50 )) || fail "$s used $(( t1 - ${cpu0[$s]} )) ticks of CPU during the stall"
        "$BIN/an2stat" --switch "$T/$s.ctl" > "$T/$s.txt"
        grep -q "given up 1 .*held now 0" "$T/$s.txt" || { cat "$T/$s.txt"; fail "$s: not one drain given up"; }
        [[ $(grep -c "did not move for" "$T/$s.log") == 1 ]] || fail "$s: the give-up is not logged once"
    done
    [[ $(grep -c "did not move for" "$T/alpha.log") == 1 ]] || fail "alpha: the give-up is not logged once"
}

fh_switch s1 swa --id 1 "${W[@]}"
fh_an2d alpha swa:7000 "${W[@]}"
fh_an2d beta swa:7000 "${W[@]}"
tail_ok s1
stalled_ok s1
"$BIN/an2d" --socket "$(fh_sock alpha)" --stop
"$BIN/an2d" --socket "$(fh_sock beta)" --stop
"$BIN/an2switch" --stop --pid-file "$T/s1.pid"

# (the give-ups logged so far are the first part's)
mv "$T/alpha.log" "$T/alpha-1sw.log.old"
fh_switch s2 swa --id 2 "${W[@]}"
fh_switch s3 swb --id 3 --trunk swa:7000 "${W[@]}"
fh_an2d alpha swa:7000 "${W[@]}"
fh_an2d beta swb:7000 "${W[@]}"
fh_switch_shows s3 "switch 2 *up" || fail "trunk s3 -> s2 not up"
tail_ok s2 s3
stalled_ok s2 s3
echo "hosts_release: ok"
