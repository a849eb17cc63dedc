#!/usr/bin/env bash
# Who may join the fabric, and for whom a host may speak on it:
# 1. links that cannot prove they hold the fabric's key are refused before HELLO, each with a
#    log line and nothing else kept: no credentials (an old-style HELLO, garbage, silence), a
#    wrong key (a stranger's link, and an an2d started with it, which refuses the switch too),
#    a handshake recorded from a good link and replayed;
# 2. an authenticated host that speaks for another (a SETUP or a FOUND with another host's
#    address) gets no VC and no answer, and the switch counts it; the real hosts' VC forms;
# 3. a SETUP whose task is of another uid is refused by the system an2d of the callee's host,
#    while one of the callee's own uid is held (and released when no task asks for it);
# 4. a task that asks for its VC after the caller's SETUP was released unasked still gets it:
#    the caller's an2d calls again.
. "$(dirname "$0")/fabric_hosts_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
fh_up sw alpha beta mallory
fh_switch s1 sw
fh_an2d alpha sw:7000
# beta: the system an2d (every uid's, with the uid rule between them), on the fabric
SYS=$T/beta-system
mkdir -m 0755 "$SYS"
fh_sys_stop() { "$BIN/an2d" --stop --system --socket-dir "$SYS" >/dev/null 2>&1 || :; }
FH_EXTRA_STOP+=(fh_sys_stop)
fh_in beta "$BIN/an2d" --system --daemon --socket-dir "$SYS" --switch sw:7000 \
    --log-file "$T/beta.log" </dev/null || fail "the system an2d on beta did not start"

peer() { fh_in mallory python3 "$FH_HERE/link_peer.py" sw 7000 "$@"; }
switch_says() { "$BIN/an2stat" --switch "$T/s1.ctl"; }
refused_links() { switch_says | sed -n 's/^links refused at the handshake \([0-9]*\),.*/\1/p'; }
refused_sig() { switch_says | sed -n 's/.*(a host speaking for another) \([0-9]*\)$/\1/p'; }
addr_of() { # the fabric address its an2d was given, as an integer (switch << 8 | port)
    local a
    a=$(sed -n 's/.*this host is \([0-9]*\)\.\([0-9]*\)$/\1 \2/p' "$1" | tail -n 1)
    [[ -n $a ]] || fail "no address in $1"
    echo $((${a% *} << 8 | ${a#* }))
}
expect() { # expect NAME WANT OUTPUT
    [[ $3 == "$2" ]] || fail "$1: expected \"$2\", got \"$3\""
}

# 1. strangers: each refused, the switch keeps nothing of them
old_hello=0100001c414e3246000100010000000000000000000000400000c80000010000
expect "an old-style HELLO" closed "$(peer noauth "$old_hello" 2>&1)"
expect "garbage" closed "$(peer noauth 474554202f20485454502f312e310d0a0d0a 2>&1)"   # GET / HTTP/1.1
(umask 077 && head -c 32 /dev/urandom >"$T/wrong.key")
expect "a wrong key" closed "$(fh_in mallory env AN2_AUTH="key:$T/wrong.key" \
    python3 "$FH_HERE/link_peer.py" sw 7000 raw "" 2>&1)"
expect "a replayed handshake" closed "$(peer replay 2>&1)"
if fh_in mallory "$BIN/an2d" -d --socket "$T/mallory.sock" --switch sw:7000 \
       --auth "key:$T/wrong.key" --log-file "$T/mallory.log" </dev/null >/dev/null 2>&1; then
    "$BIN/an2d" --socket "$T/mallory.sock" --stop
    fail "an an2d with a wrong key attached to the switch"
fi
grep -q "not authenticated: its proof does not check" "$T/mallory.log" ||
    fail "the an2d with a wrong key does not say why: $(cat "$T/mallory.log")"
expect "silence" closed "$(peer noauth "" 2>&1)"
expect "links refused" 6 "$(refused_links)"
for why in "it said HELLO without authenticating" "not an AN2 link handshake" \
           "its proof does not check with our key"; do
    grep -q "link from .* refused: $why" "$T/s1.log" || fail "the switch's log does not say: $why"
done
switch_says | grep -q "authenticating now 0;" || fail "the switch still holds a stranger: $(switch_says)"
kill -0 "$(cat "$T/s1.pid")" || fail "the switch died"

# 2. no host speaks for another: the spoofed message gets no answer (the first that comes is
# the one for mallory's own SETUP, VCI 32769, to a missing endpoint: cause 2)
alpha=$(addr_of "$T/alpha.log")
beta=$(addr_of "$T/beta.log")
expect "a SETUP for alpha" "release vci 32769 cause 2" "$(peer spoof-setup "$alpha" "$beta" 2>&1)"
expect "a FOUND for alpha" "release vci 32769 cause 2" "$(peer spoof-found "$alpha" "$beta" 2>&1)"
expect "signalling refused" 2 "$(refused_sig)"
grep -q "port [0-9]*: a SETUP that speaks for host $((alpha >> 8)).$((alpha & 255)) refused" "$T/s1.log" ||
    fail "the switch's log does not name the spoofed SETUP"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$SYS/an2d.sock" \
    "$TBIN/t_exchange" >/dev/null || fail "alpha and beta could not exchange after the spoofs"

# flood_start NAME HOST SOCKET: t_flood on HOST (its an2d at SOCKET), its output in T/NAME.out;
# it reads its peer's endpoint id from the fifo T/NAME.in; FLOOD_PID
flood_start() {
    mkfifo "$T/$1.in"
    fh_in "$2" env AN2_SOCKET="$3" "$TBIN/t_flood" <"$T/$1.in" >"$T/$1.out" 2>&1 &
    FLOOD_PID=$!
}
flood_ep() { awk '$1 == "ep" { print $2; exit }' "$T/$1.out"; }
flood_started() { [[ -n $(flood_ep "$1") ]]; }
flood_wait() { hosts_wait_for 300 flood_started "$1" || fail "t_flood $1 did not start: $(cat "$T/$1.out")"; }

# 3. the uid rule across hosts: beta's system an2d refuses a SETUP of another uid's task
flood_start b beta "$SYS/an2d.sock"
exec 5>"$T/b.in"
flood_wait b
ep=$(flood_ep b)
expect "a SETUP of uid 4242" "release vci 32768 cause 7" "$(peer call "$ep" 4242 2>&1)"
grep -q "SETUP from endpoint .* (uid 4242) to endpoint $ep refused: a VC between these uids" \
    "$T/beta.log" || fail "beta's an2d does not say why it refused uid 4242"
# root's own SETUP is held for its task, which never asks: released with cause 5 (timeout)
expect "a SETUP of uid 0" "release vci 32768 cause 5" "$(peer call "$ep" 0 2>&1)"

# 4. alpha's task calls beta's (the lower endpoint calls); beta's task asks only once beta's
# an2d has released the SETUP unasked; the VC forms all the same (alpha's an2d called again),
# and alpha's sender sees beta's task go when it is killed
flood_start a alpha "$(fh_sock alpha)"
sender=$FLOOD_PID
exec 6>"$T/a.in"
flood_wait a
a_ep=$(flood_ep a)
((a_ep < ep)) || fail "alpha's endpoint $a_ep is not below beta's $ep: alpha would not call"
echo "$ep" >&6
released() { grep -q "SETUP from endpoint $a_ep to endpoint $ep released after" "$T/beta.log"; }
hosts_wait_for 300 released || fail "beta's an2d did not release alpha's SETUP unasked"
echo "$a_ep" >&5
exec 5>&- 6>&-
vc_up() { "$BIN/an2stat" --socket "$(fh_sock alpha)" 2>/dev/null | grep -q "$((ep >> 16 >> 8)).$((ep >> 16 & 255))/$((ep & 65535))"; }
hosts_wait_for 300 vc_up || fail "the VC from alpha to beta did not form: $("$BIN/an2stat" --socket "$(fh_sock alpha)" 2>&1 | tail -n 5)"
b_pid=$(sed -n "s/.*endpoint $ep opened by pid \([0-9]*\) .*/\1/p" "$T/beta.log" | tail -n 1)
[[ -n $b_pid ]] || fail "no pid of beta's task in beta's log"
kill -KILL "$b_pid"
wait "$sender" || fail "alpha's sender: $(cat "$T/a.out")"
grep -q "PEER_GONE" "$T/a.out" || fail "alpha's sender: $(cat "$T/a.out")"
echo "hosts_auth: ok"
