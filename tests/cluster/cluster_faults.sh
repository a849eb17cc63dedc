#!/usr/bin/env bash
# Faults across the hosts of a cluster (scripts/cluster.sh up 3; ctest label hosts), each while
# a task on h1 receives a stream of numbered, patterned messages over AN2 from its child on
# another host (fastpath_check stream): the child killed; the child's an2d killed; the child's
# AN2 link cut (its traffic to the switch held, Ethernet and the pvmds untouched) for 2 s; the
# child's host deleted (pvm console `delete`, i.e. pvm_delhosts) with the VC open. Each time the
# receiver must end (no hang) and nothing may arrive corrupted or out of order; while both tasks
# live (an2d killed, link cut) every message must arrive, with no receive error (what the failed
# VC had not delivered goes by the daemon route); when the sender dies, no message may be missing
# unless a receive reported an error. The stream must have been on AN2 when the fault came (the
# switch's counters), and AN2 must work again afterwards where the host is still there. Each
# fault comes at an event, never after a time: while the receiver pauses after 100 messages of
# 1.1 MB (fastpath_check handover: it goes on at our SIGUSR1, once the fault is in place) and the
# sender is stalled in mid-stream on AN2's flow control (its an2d holds cells of the VC), and the
# link is restored once h2's an2d has logged it down; where the sender dies, fewer than all
# messages must arrive (the fault came mid-stream).
# Usage: cluster_faults.sh PVM_TEST_BIN GROUPS_TEST_BIN DROPIN_DIR (ctest passes them).
set -euo pipefail
TESTBIN=$(cd "$1" && pwd)
CLUSTER_TEST=faults
# shellcheck source=/dev/null # the tests' shared harness
source "$(dirname "$0")/cluster_lib.sh"

# the stream's child (or, on h1, its receiver): fastpath_check running on HOST of our cluster
# (other tests' clusters may run fastpath_check on their own h1, h2, h3 meanwhile)
child_pid() { # HOST
    local p
    for p in $(pgrep -x fastpath_check); do
        grep -qzxF "AN2_CLUSTER=$S" "/proc/$p/environ" 2>/dev/null &&
            grep -qzx "AN2_CLUSTER_HOST=$1" "/proc/$p/environ" 2>/dev/null && echo "$p"
    done
    return 0
}

# stream_start HOST [MODE N SIZE]: the receiver on h1, its sender on HOST; returns once HOST's
# cells are flowing (the stream is on AN2)
stream_start() {
    local host=$1 mode=${2:-stream} base
    N=${3:-3000} SIZE=${4:-60000}
    base=$(cells_from "$host")
    on h1 -- env PVM_TEST_SPAWN_HOST="$host" timeout 200 "$TESTBIN/fastpath_check" "$mode" "$N" "$SIZE" \
        >"$T/stream.out" 2>"$T/stream.err" &
    STREAM=$!
    hosts_wait_for 300 eval '(( $(cells_from '"$host"') > '"$base"' + 100000 ))' ||
        fail "the stream from $host never went over AN2: $(cat "$T/stream.out" "$T/stream.err")"
}
# stream_stalled HOST: the stream from HOST in handover mode (200 messages of 1.1 MB), returns
# once the receiver pauses, taking nothing, after 100 messages, and the sender stalls on AN2's
# flow control (HOST's an2d holds cells of its VC): mid-stream, until stream_resume
stalled_on() { # HOST: its an2d holds cells of a VC (an2stat -v: BUF)
    AN2_SOCKET=$S/$1/tmp/an2d.sock AN2_NO_AUTOSTART=1 "$BIN/an2stat" -v 2>/dev/null |
        awk '/^ENDPOINT +VC /{ v = 1; next } v && NF >= 21 && $17 > 0 { f = 1 } END { exit !f }'
}
stream_stalled() {
    stream_start "$1" handover 200 1100000
    hosts_wait_for 300 grep -q '^stream: paused' "$T/stream.out" ||
        fail "the receiver never paused: $(cat "$T/stream.out" "$T/stream.err")"
    hosts_wait_for 300 stalled_on "$1" ||
        fail "the sender on $1 never stalled on AN2's flow control: $(AN2_SOCKET=$S/$1/tmp/an2d.sock "$BIN/an2stat" -v 2>&1)"
}
# the paused receiver on h1 goes on
stream_resume() {
    local r
    r=$(child_pid h1)
    [[ -n $r ]] || fail "no receiver on h1 to resume: $(cat "$T/stream.out" "$T/stream.err")"
    kill -USR1 $r
}
# stream_check WHAT all|partial: the receiver ended well; prints its summary line; all: every
# message arrived, no receive error; partial (the sender died mid-stream): the messages it sent
# before it died (not known here), fewer than all
stream_check() {
    local what=$1 rc=0 line got errors
    wait "$STREAM" || rc=$?
    line=$(grep -E '^stream: [0-9]+ of ' "$T/stream.out" || :)
    [[ $rc == 0 && -n $line ]] || fail "$what: the receiver failed ($rc): $(cat "$T/stream.out" "$T/stream.err")"
    [[ $line == *", 0 corrupted, 0 out of order, "* ]] || fail "$what: $line"
    got=$(sed -E 's/^stream: ([0-9]+) of.*/\1/' <<<"$line")
    errors=$(sed -E 's/.* ([0-9]+) receive errors$/\1/' <<<"$line")
    echo "$what: $line"
    if [[ $2 == all ]] && ((got != N || errors != 0)); then
        fail "$what: messages missing or reported lost while both tasks lived: $line"
    fi
    if [[ $2 == partial ]] && ((got >= N)); then
        fail "$what: every message arrived: the fault did not come mid-stream: $line"
    fi
}
# an AN2 stream from HOST to h1 works (again)
an2_works() { # HOST
    local base
    base=$(cells_from "$1")
    on h1 -- env PVM_TEST_SPAWN_HOST="$1" timeout 60 "$TESTBIN/fastpath_check" stream 300 60000 >"$T/again.out" 2>&1 ||
        fail "after the fault, messages from $1 fail: $(cat "$T/again.out")"
    grep -q "^stream: 300 of 300 messages, 0 corrupted, 0 out of order, 0 receive errors" "$T/again.out" ||
        fail "after the fault: $(cat "$T/again.out")"
    (($(cells_from "$1") > base)) || fail "after the fault, nothing from $1 went over AN2"
}

cluster_fresh
# (links over TCP: the link cut below holds h2's packets to the switch's port with tc; a link
# in shared memory cut or stalled is fabric_shm_faults' and fabric_shm_stuck_peer's)
bash "$CL" up 3 --carrier tcp --ep "$BIN:$TESTBIN:/usr/lib/pvm3/lib:/usr/bin" 2>&1 | timeout 90 cat >"$T/up.out" ||
    fail "up 3: $(cat "$T/up.out")"
remember
ok "cluster of 3 hosts up"
export PVM_EXPORT=LSAN_OPTIONS

# --- the sender killed -----------------------------------------------------------------------
stream_stalled h2
c=$(child_pid h2)
[[ -n $c ]] || fail "no sender on h2"
kill -KILL $c
stream_resume
stream_check "sender on h2 killed" partial
ok "the sender on h2 killed mid-stream: the receiver ended, nothing corrupted or out of order"

# --- the sender's an2d killed ----------------------------------------------------------------
stream_stalled h2
a=$(cat "$S/h2/tmp/an2d.pid")
kill -KILL "$a"
stream_resume
stream_check "an2d of h2 killed" all
grep -aq "an2d gone" "$S"/h1/tmp/pvml.* || fail "the sender did not log its an2d's end"
an2_works h2 # (its next task there starts an an2d: AN2D_PATH)
ok "h2's an2d killed mid-stream: the pair went on by the daemon route, every message there; AN2 again after"

# --- the sender's AN2 link cut ---------------------------------------------------------------
# h2's packets to the switch's port are held (an htb class of 8 bit/s; tc's drop action is not
# available here): the link falls silent, the pvmds (UDP) and everything else go on. The cut
# comes while the receiver pauses after 100 messages of 1.1 MB and the sender waits for credit
# in mid-message (stream_stalled), and lasts until h2's an2d logs its uplink down; then the
# receiver goes on.
cut_off() { on h2 -- tc qdisc del dev eth0 root 2>/dev/null || :; }
downs() { awk '/uplink to the switch down/ { n++ } END { print n + 0 }' "$S/h2/an2d.log"; }
on h2 -- sh -c 'tc qdisc add dev eth0 root handle 1: htb default 1 &&
    tc class add dev eth0 parent 1: classid 1:1 htb rate 10gbit &&
    tc class add dev eth0 parent 1: classid 1:2 htb rate 8bit ceil 8bit' >/dev/null 2>&1 ||
    { cut_off; fail "cannot shape h2's traffic with tc"; }
stream_stalled h2 # (on a failure the qdisc goes with the cluster)
d0=$(downs)
on h2 -- sh -c 'tc filter add dev eth0 parent 1: protocol ip u32 match ip dport 7000 0xffff flowid 1:2 &&
    tc filter add dev eth0 parent 1: protocol ipv6 u32 match ip6 dport 7000 0xffff flowid 1:2' ||
    { cut_off; fail "cannot hold h2's link traffic with tc"; }
hosts_wait_for 300 eval '(( $(downs) > d0 ))' || { cut_off; fail "h2's an2d did not see its link go"; }
cut_off
stream_resume
stream_check "h2's AN2 link cut until its an2d saw it go" all
# (its an2d's last word on its uplink says it is up again)
hosts_wait_for 300 eval 'grep "uplink to the switch" "$S/h2/an2d.log" | tail -n 1 | grep -q " up: this host"' ||
    fail "h2's link did not come back"
an2_works h2
ok "h2's AN2 link cut mid-stream until its an2d saw it go: the pair went on by the daemon route, every message there; AN2 again after"

# --- the sender's host deleted ---------------------------------------------------------------
stream_stalled h3
echo "delete h3" | on h1 -- timeout 30 pvm >"$T/delete.out" 2>&1 || :
stream_resume
stream_check "h3 deleted" partial
echo conf | on h1 -- timeout 30 pvm >"$T/conf.out" 2>&1 || :
grep -Eq '(^|> )2 hosts, ' "$T/conf.out" || fail "h3 still in the machine: $(cat "$T/conf.out")"
hosts_wait_for 300 eval '[[ -z $(child_pid h3) ]]' || fail "the sender on h3 outlived its host's deletion"
ok "h3 deleted (pvm_delhosts) mid-stream with its VC open: the receiver ended, nothing corrupted or out of order"

cluster_finish cluster_faults
