#!/usr/bin/env bash
# Descriptor exhaustion: an2d fits its client limit in RLIMIT_NOFILE (or refuses to start with
# a --max-clients that does not fit), tells a client beyond the limit why it is refused, drops
# connections that stay silent without an endpoint, and when out of descriptors stops
# accepting for a while: no spinning, no flooded log, and fresh clients are served again.
. "$(dirname "$0")/fabric_lib.sh"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# until_held: t_hold has made its connections
until_held() { for _ in $(seq 100); do grep -q "^held" "$T/hold.out" && return; sleep 0.1; done; }
# until_served SECONDS: a fresh client is served within SECONDS, else fail with WHY ($2)
until_served() {
    for _ in $(seq $(( $1 * 10 ))); do
        "$BIN/an2stat" --summary >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    fail "$2"
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
(ulimit -n 256; exec "$BIN/an2d" --socket "$AN2_SOCKET" --log-file "$T/an2d.log") &
AN2D_PID=$!
for _ in $(seq 100); do "$BIN/an2stat" --summary >/dev/null 2>&1 && break; sleep 0.05; done
"$TBIN/t_hold" 300 14 > "$T/hold.out" &
hold=$!
KIDS+=("$hold")
until_held
t0=$(cpu_ticks "$AN2D_PID")
out=$("$BIN/an2stat" --summary 2>&1) && fail "a client beyond the limit was served: $out"
echo "$out" | grep -q "clients already" || fail "a refused client was not told why: $out"
sleep 4
at_most_busy "$t0" 4
# the silent ones go after 10 s: a fresh client is served while they are still held
until_served 15 "no fresh client served while silent connections were held"
kill -0 "$hold" 2>/dev/null || fail "t_hold ended before the check"
wait "$hold" || fail "t_hold"
KIDS=()
cat "$T/hold.out"
closed=$(sed -n 's/^closed by an2d: //p' "$T/hold.out")
[ "$closed" -ge 290 ] || fail "an2d closed only $closed of 300 idle connections"
log_has "silent without an endpoint" || fail "dropping silent clients was not logged"
lines=$(grep -c "refused pid" "$T/an2d.log")
[ "$lines" -le $(( 2 * 5 + 2 )) ] || fail "$lines refusal lines: the log is not rate-limited"
stop_an2d
bytes=$(stat -c %s "$T/an2d.log")
[ "$bytes" -lt 20000 ] || fail "an2d wrote $bytes bytes of log"
rm "$T/an2d.log"

# 3. Out of descriptors (the limit lowered under a running an2d): accepting pauses.
start_an2d
prlimit --pid "$AN2D_PID" --nofile=40:40
"$TBIN/t_hold" 80 4 > "$T/hold.out" &
hold=$!
KIDS+=("$hold")
until_held
t0=$(cpu_ticks "$AN2D_PID")
sleep 3
at_most_busy "$t0" 3
wait "$hold" || fail "t_hold"
KIDS=()
log_has "not accepting until a client goes" || fail "the pause was not logged"
lines=$(grep -c "not accepting" "$T/an2d.log")
[ "$lines" -le 6 ] || fail "$lines lines about accept: the log is not rate-limited"
until_served 10 "no client served after the descriptors came back"
stop_an2d
echo "dos: ok"
