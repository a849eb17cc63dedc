#!/usr/bin/env bash
# Failures of the fabric: the switch killed, a host's link cut, a remote an2d killed. Every VC
# across the failure is reported gone at both ends (PEER_GONE, or the end's own an2d lost)
# within a second of the failure being detectable, VCs elsewhere keep working, and the hosts
# reattach once the switch or link is back.
. "$(dirname "$0")/fabric_hosts_lib.sh"
fh_up sw alpha beta gamma delta
LIMIT_MS=${FH_GONE_LIMIT_MS:-1000}
SLACK_MS=1500 # scheduling on a loaded 2-core machine; the measured delays are printed

now_ms() { date +%s%3N; }
count_is() { [[ $(grep -c "$2" "$1") == "$3" ]]; }   # FILE REGEX N

# pair_start FROM TO OUT: t_gone between two hosts (a VC), output in OUT; waits until both
# ends are ready and sets PAIR_PID
pair_start() {
    rm -f "$3"
    fh_in "$1" env AN2_SOCKET="$(fh_sock "$1")" AN2_PEER_SOCKET="$(fh_sock "$2")" \
        "$TBIN/t_gone" > "$3" 2>&1 &
    PAIR_PID=$!
    hosts_wait_for 100 count_is "$3" '^ready' 2 && return 0
    cat "$3" >&2
    fail "t_gone: no VC between $1 and $2"
}
gone_start() { pair_start alpha beta "$T/gone.out"; GONE_PID=$PAIR_PID; }

# gone_check WHAT T0: both ends reported within LIMIT_MS (+ slack) of T0
gone_check() {
    local what=$1 t0=$2
    wait "$GONE_PID" || { cat "$T/gone.out" >&2; fail "$what: t_gone failed"; }
    hosts_wait_for 300 count_is "$T/gone.out" '^gone' 2 ||
        { cat "$T/gone.out" >&2; fail "$what: not both ends were told the VC is gone"; }
    grep '^gone' "$T/gone.out" | while read -r _ side ms how; do
        echo "$what: $side told after $((ms - t0)) ms ($how)"
    done
    awk -v t0="$t0" -v lim=$((LIMIT_MS + SLACK_MS)) '$1 == "gone" { n++; if ($3 - t0 > lim) bad = 1 }
        END { exit !(n == 2 && !bad) }' "$T/gone.out" || fail "$what: not both ends within ${LIMIT_MS} ms"
}

uplink_up() { AN2_SOCKET=$(fh_sock "$1") "$BIN/an2stat" -p 2>/dev/null | grep -q "uplink to the switch up"; }
uplinks_up() {
    local h
    for h in "$@"; do
        hosts_wait_for 300 uplink_up "$h" || fail "$h did not reattach to the switch"
    done
}

# bystander_start / bystander_check: a VC between gamma and delta, open across the failure,
# must not be reported gone. Checked after an exchange between gamma and delta through the same
# switch: by then their an2ds have taken whatever the switch sent them about the failure. Then
# its end on gamma is killed: the end on delta must be told, after that kill and not before.
bystander_start() { pair_start gamma delta "$T/by.out"; BY_PID=$PAIR_PID; }
bystander_check() {
    local t_kill
    ! grep -q '^gone' "$T/by.out" || { cat "$T/by.out" >&2; fail "$1: the VC gamma <-> delta went too"; }
    t_kill=$(now_ms)
    pkill -TERM -P "$BY_PID" || fail "$1: no bystander on gamma to end" # (t_gone, its child)
    wait "$BY_PID" 2>/dev/null || :
    hosts_wait_for 300 grep -q '^gone' "$T/by.out" ||
        { cat "$T/by.out" >&2; fail "$1: the bystander's end on delta was not told of the end on gamma"; }
    awk -v t="$t_kill" '$1 == "gone" && $3 < t { bad = 1 } END { exit bad }' "$T/by.out" ||
        { cat "$T/by.out" >&2; fail "$1: the VC gamma <-> delta went before its end was killed"; }
    echo "$1: the VC between gamma and delta was untouched"
}

exchange() { # exchange FROM TO: a full SAR exchange between two other hosts still works
    fh_in "$1" env AN2_SOCKET="$(fh_sock "$1")" AN2_PEER_SOCKET="$(fh_sock "$2")" \
        "$TBIN/t_exchange" >/dev/null || fail "exchange $1 <-> $2 after the failure"
}

fh_switch s1 sw
for h in alpha beta gamma delta; do fh_an2d "$h" sw:7000; done

# 1. the switch is killed (SIGKILL: its connections reset)
gone_start
t0=$(now_ms)
kill -KILL "$(cat "$T/s1.pid")"
gone_check "switch killed" "$t0"
rm -f "$T/s1.pid" "$T/s1.ctl"
fh_switch s1 sw
uplinks_up alpha beta gamma delta
exchange gamma delta

# 2. beta's link is cut: silence past the keepalive (3 x 200 ms) at both ends. A link in shared
# memory runs over no interface: there is nothing to cut.
if [[ $FH_CARRIER == shm ]]; then
    echo "beta's link cut: not run: a link in shared memory has no interface to take down"
else
    bystander_start
    gone_start
    hosts_link_down beta
    t0=$(($(now_ms) + 600))
    gone_check "beta's link cut" "$t0"
    exchange gamma delta
    bystander_check "beta's link cut"
    hosts_link_up beta
    uplinks_up beta
fi

# 3. beta's an2d is killed: its connection to the switch resets
bystander_start
gone_start
t0=$(now_ms)
pkill -KILL -f "an2d -d --socket $(fh_sock beta)" || fail "no an2d on beta to kill"
gone_check "beta's an2d killed" "$t0"
exchange gamma delta
bystander_check "beta's an2d killed"
grep -q "VC to endpoint .* is gone: a link on the path went down" "$T/alpha.log" ||
    fail "alpha's log does not say why its VC went"
echo "hosts_failures: ok"
