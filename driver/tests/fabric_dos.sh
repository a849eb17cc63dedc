#!/usr/bin/env bash
# Descriptor exhaustion: an2d fits its client limit in RLIMIT_NOFILE (or refuses to start with
# a --max-clients that does not fit), tells a client beyond the limit why it is refused, drops
# connections that stay silent without an endpoint, and when out of descriptors stops
# accepting for a while: no spinning, no flooded log, and fresh clients are served again.
. "$(dirname "$0")/fabric_lib.sh"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# hold N: t_hold holds N silent connections until release (its stdin, a FIFO, is closed)
hold() {
    rm -f "$T/hold.in" && mkfifo "$T/hold.in"
    "$TBIN/t_hold" "$1" - < "$T/hold.in" > "$T/hold.out" &
    hold=$!
    KIDS+=("$hold")
    exec 3> "$T/hold.in"
    wait_for "t_hold to make its connections" grep -q "^held" "$T/hold.out"
}
release() { exec 3>&-; wait "$hold" || fail "t_hold"; KIDS=(); }
# closed_at_least N: t_hold has seen an2d close N of its connections
closed_at_least() { awk -v n="$1" '/^closed [0-9]+$/ && $2 >= n { f = 1 } END { exit !f }' "$T/hold.out"; }
served() { "$BIN/an2stat" --summary >/dev/null 2>&1; }
# log_lines_at_most TEXT SINCE: TEXT's lines fit an2d's rate limit (5 a 10 s window) since then
log_lines_at_most() {
    local lines windows=$(( (SECONDS - $2) / 10 + 1 ))
    lines=$(grep -c -- "$1" "$T/an2d.log") || true
    [ "$lines" -le $(( 5 * windows + 1 )) ] ||
        fail "$lines lines of '$1' in $((SECONDS - $2)) s: the log is not rate-limited"
}
# at_most_busy FROM_TICKS SECONDS: an2d used at most a fifth of SECONDS of CPU since then
at_most_busy() {
    local used=$(( $(cpu_ticks "$AN2D_PID") - $1 ))
    echo "an2d used $used ticks ($hz/s) in about $2 s"
    [ "$used" -le $(( hz * $2 / 5 )) ] || fail "an2d used $used CPU ticks in $2 s"
}

# 1. A --max-clients that the descriptor limit cannot hold is refused with the reason.
out=$( (ulimit -n 256; exec timeout 10 "$BIN/an2d" --socket "$T/x.sock" --max-clients 1000) 2>&1) &&
    fail "an2d started with 1000 clients in 256 descriptors"
echo "$out" | grep -q "RLIMIT_NOFILE" || fail "no reason given: $out"

# 2. ulimit -n 256 and 300 connections that never send a byte.
since=$SECONDS
(ulimit -n 256; exec "$BIN/an2d" --socket "$AN2_SOCKET" --log-file "$T/an2d.log") &
AN2D_PID=$!
until_answers
hold 300
# (an2stat's connection is accepted after t_hold's: the limit is reached by then)
out=$("$BIN/an2stat" --summary 2>&1) && fail "a client beyond the limit was served: $out"
echo "$out" | grep -q "clients already" || fail "a refused client was not told why: $out"
t0=$(cpu_ticks "$AN2D_PID")
sleep 4 # a window to measure an2d's CPU time in: it must stay idle, however long this is
at_most_busy "$t0" 4
# the silent ones go after 10 s: a fresh client is served while they are still held
wait_for "a fresh client to be served while silent connections were held" served
kill -0 "$hold" 2>/dev/null || fail "t_hold ended before the check"
wait_for "an2d to close 290 of 300 idle connections" closed_at_least 290
release
cat "$T/hold.out"
closed=$(sed -n 's/^closed by an2d: //p' "$T/hold.out")
[ "$closed" -ge 290 ] || fail "an2d closed only $closed of 300 idle connections"
log_has "silent without an endpoint" || fail "dropping silent clients was not logged"
log_lines_at_most "refused pid" "$since"
stop_an2d
bytes=$(stat -c %s "$T/an2d.log")
[ "$bytes" -lt 20000 ] || fail "an2d wrote $bytes bytes of log"
rm "$T/an2d.log"

# 3. Out of descriptors (the limit lowered under a running an2d): accepting pauses.
start_an2d
since=$SECONDS
prlimit --pid "$AN2D_PID" --nofile=40:40
hold 80
wait_for "an2d to pause accepting (logged)" log_has "not accepting until a client goes"
t0=$(cpu_ticks "$AN2D_PID")
sleep 3 # a window to measure an2d's CPU time in, paused: it must stay idle
at_most_busy "$t0" 3
release
log_lines_at_most "not accepting" "$since"
wait_for "a client to be served after the descriptors came back" served
stop_an2d
echo "dos: ok"
