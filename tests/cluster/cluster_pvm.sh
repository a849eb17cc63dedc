#!/usr/bin/env bash
# Test of scripts/cluster.sh (ctest label hosts): a cluster of 3 emulated hosts comes up with
# stock pvmd on each (conf lists 3 hosts), a task spawned on h3 has h3's environment, a PVM
# program runs on every host and exchanges messages with the first (over AN2 through the switch:
# its counters move), Debian's console spawns Debian's hello on every host, and `down` leaves
# nothing: no namespace, /etc/netns entry, process or state. Then `up` is SIGKILLed at two points,
# and a script using a cluster (two switches, OC-3c links) is SIGKILLed while its tasks talk:
# each time the next `down` removes what was left. The state directory is its own
# (AN2_CLUSTER_STATE, one per build tree), never a user's running cluster; the remains of a run
# of this test that was killed are removed first.
# Root only (network namespaces): otherwise, or without Debian's pvm, exit 77 (skipped).
set -euo pipefail

CLUSTER_TEST=pvm
# shellcheck source=/dev/null # the tests' shared harness
source "$(dirname "$0")/cluster_lib.sh"
[[ -x $BIN/cluster-ping ]] || fail "$BIN/cluster-ping missing (build it)"

# --- case 1: up, use, down ----------------------------------------------------------------

cluster_fresh

t0=$SECONDS
# (through a pipe: up must not leave anything holding its caller's output open)
bash "$CL" up 3 2>&1 | timeout 90 cat >"$T/up.out" || fail "up 3 (or its output still open after 90 s): $(cat "$T/up.out")"
remember
[[ -n $PREFIXES ]] || fail "no hosts run tagged $TAG after up"
ok "up 3 in $((SECONDS - t0)) s"
[[ $(stat -c '%u %a' "$S") == "0 700" ]] || fail "state $S is $(stat -c '%U %a' "$S"), not root's 0700"
for h in h1 h2 h3; do
    [[ $(stat -c '%u %a' "$S/$h/tmp") == "0 700" ]] || fail "$h's PVM_TMP is not root's 0700"
done
bash "$CL" up 2 >"$T/up2.out" 2>&1 && fail "a second up over a running cluster succeeded"
grep -q "exists" "$T/up2.out" || fail "a second up failed otherwise: $(cat "$T/up2.out")"

# the console on h1 lists the 3 hosts
bash "$CL" exec h1 -- sh -c 'echo conf | pvm' >"$T/conf.out" 2>&1 || :
grep -Eq '(^|> )3 hosts, ' "$T/conf.out" || fail "conf on h1 does not list 3 hosts: $(cat "$T/conf.out")"
for h in h1 h2 h3; do
    grep -Eq "^ +$h +[0-9a-f]+ +LINUX" "$T/conf.out" || fail "conf on h1 lacks $h: $(cat "$T/conf.out")"
done
ok "pvm conf on h1 lists h1, h2, h3"

# each host: its name, its own PVM_TMP and an2d, its pvmd
for h in h1 h2 h3; do
    out=$(bash "$CL" exec "$h" -- sh -c 'echo "$(hostname) $PVM_TMP $AN2_SOCKET $PVM_VMID"')
    read -r name tmp sock vmid <<<"$out"
    [[ $name == "$h" && $tmp == "$S/$h/tmp" && $sock == "$S/$h/tmp/an2d.sock" && -n $vmid ]] ||
        fail "exec $h: '$out'"
done
bash "$CL" status >"$T/status.out" 2>&1 || fail "status: $(cat "$T/status.out")"
for h in h1 h2 h3; do
    grep -Eq "^$h +10\.82\.[0-9]+\.[0-9]+ +sw1 +up \(pid [0-9]+\).* up \(pid [0-9]+\), address 1\.[0-9]+, uplink up" \
        "$T/status.out" || fail "status of $h: $(cat "$T/status.out")"
done
grep -Eq "^sw1 .*an2switch up" "$T/status.out" || fail "status of sw1: $(cat "$T/status.out")"
ok "exec runs on each host with its own PVM_TMP and AN2_SOCKET; status shows pvmds, an2ds, switch"

# a task that h3's pvmd spawns has h3's environment, even if its spawner on h1 exports its own
# shellcheck disable=SC2094 # the loop reads what the console writes, on purpose
{
    echo "spawn -h3 -> /usr/bin/env"
    hosts_wait_for 300 grep -qs 'EOF' "$T/env.out" || :
    echo quit
} | PVM_EXPORT=AN2_SOCKET:PVM_TMP:CLUSTER_TEST AN2_SOCKET=/nowhere CLUSTER_TEST=exported \
    timeout 60 bash "$CL" exec h1 -- stdbuf -oL pvm >"$T/env.out" 2>&1 || :
grep -q 'EOF' "$T/env.out" || fail "the console never saw the task on h3 end (EOF): $(cat "$T/env.out")"
for want in "PVM_TMP=$S/h3/tmp" "AN2_SOCKET=$S/h3/tmp/an2d.sock" "AN2_SWITCH=shm:$S/sw1/link" \
    "PVMSOCK=$S/h3/tmp/pvmtmp" "AN2_CLUSTER_HOST=h3" "CLUSTER_TEST=exported"; do
    grep -q "\[[0-9]*:tc[0-9a-f]*\] $want" "$T/env.out" || fail "the task on h3 lacks $want: $(cat "$T/env.out")"
done
ok "a task spawned on h3 from h1 runs with h3's PVM_TMP, AN2_SOCKET and pvmd (PVM_EXPORT keeps the rest)"

# a PVM program on every host (libpvm3-an2): the messages cross the switch
timeout 60 bash "$CL" exec h1 -- cluster-ping 10 >"$T/ping.out" 2>&1 || fail "cluster-ping: $(cat "$T/ping.out")"
for h in h1 h2 h3; do
    grep -q "^host $h: child t[0-9a-f]* on $h, 40 round trips ok" "$T/ping.out" ||
        fail "cluster-ping: no answer from $h: $(cat "$T/ping.out")"
done
"$BIN/an2stat" --switch "$S/sw1/ctl" >"$T/sw1.out" 2>&1 || fail "an2stat --switch: $(cat "$T/sw1.out")"
# port lines: PORT PEER(2 words) STATE RTT WINDOW RATE VCS CELLS_IN CELLS_OUT DROPS ...
# At pvm_exit a task acknowledges on every open VC (one cell). When both ends of a VC close at
# once, the switch discards that cell for the end already released: at most one per VC through
# the port, and h1's parent has two VCs through the switch. A lost data cell would be more.
awk '$2 == "host" && $4 == "up" && $9 > 1000 && $10 > 1000 && $11 <= 2 { n++ } END { exit n != 3 }' \
    "$T/sw1.out" || fail "the switch did not carry the hosts' messages: $(cat "$T/sw1.out")"
ok "cluster-ping from h1: 40 round trips with a task on each host, over AN2 through sw1"

# the same with Debian's libpvm3 (pvmds and TCP)
if [[ -x $BIN/cluster-ping-stock ]]; then
    timeout 60 bash "$CL" exec h2 -- cluster-ping-stock 3 >"$T/ping-stock.out" 2>&1 ||
        fail "cluster-ping-stock: $(cat "$T/ping-stock.out")"
    [[ $(grep -c "round trips ok" "$T/ping-stock.out") == 3 ]] || fail "cluster-ping-stock: $(cat "$T/ping-stock.out")"
    ok "cluster-ping-stock from h2 (Debian's libpvm3): every host answers"
fi

# Debian's console spawns Debian's hello on every host; each hello spawns hello_other somewhere
# shellcheck disable=SC2094 # the loop reads what the console writes, on purpose
{
    for h in h1 h2 h3; do echo "spawn -$h -> /usr/bin/hello.pvm"; done
    hosts_wait_for 300 eval '(( $(grep -cs "hello, world from h" "$T/hello.out") + 0 >= 3 ))' || :
    echo quit
} | timeout 60 bash "$CL" exec h1 -- stdbuf -oL pvm >"$T/hello.out" 2>&1 || :
(($(grep -c 'hello, world from h' "$T/hello.out") >= 3)) ||
    fail "the console did not get 3 greetings: $(cat "$T/hello.out")"
# the greetings, by the host of the hello that printed it (a tid's host part: h1 t4...., h2
# t8...., h3 tc....)
greeted=$(sed -nE 's/^(pvm> )?\[[0-9]+:t([48c])[0-9a-f]{4}\] from t[0-9a-f]+: hello, world from h[123]$/\2/p' \
    "$T/hello.out" | sort | tr -d '\n')
[[ $greeted == 48c ]] || fail "hello on h1, h2, h3: greetings from hosts '$greeted': $(cat "$T/hello.out")"
ok "console: hello.pvm spawned on h1, h2 and h3 got its hello_other's greeting"

t0=$SECONDS
bash "$CL" down >"$T/down.log" 2>&1 || fail "down: $(cat "$T/down.log")"
assert_clean "down"
bash "$CL" down >>"$T/down.log" 2>&1 || fail "a second down failed"
ok "down in $((SECONDS - t0)) s: nothing left (namespaces, /etc/netns, processes, state); twice is fine"

# --- case 2: killed halfway; the next down cleans up ---------------------------------------

# crash_at WHAT CMD CHECK...: start CMD (a script) in the background, SIGKILL it and its direct
# children once CHECK holds (what they started lives on), then down must remove everything
crash_at() {
    local what=$1 cmd=$2
    shift 2
    PREFIXES='' INODES='' RUNS=''
    bash -c "$cmd" >"$T/crash.out" 2>&1 &
    UP_PID=$!
    hosts_wait_for 300 "$@" || fail "crash at $what: never got there: $(cat "$T/crash.out")"
    remember
    # shellcheck disable=SC2046 # a list of pids
    kill -KILL "$UP_PID" $(pgrep -P "$UP_PID") 2>/dev/null || :
    wait "$UP_PID" 2>/dev/null || :
    UP_PID=''
    remember
    [[ -n $PREFIXES && -n $(leftovers) ]] || fail "crash at $what: nothing was made before the kill"
    nproc=$(leftovers | grep -c process || :)
    bash "$CL" up 3 >"$T/up3.out" 2>&1 && fail "crash at $what: up over the remains succeeded"
    bash "$CL" down >"$T/down.log" 2>&1 || fail "down after a crash at $what: $(cat "$T/down.log")"
    assert_clean "down after a crash at $what"
    ok "killed at $what ($(wc -w <<<"$INODES") namespaces, $nproc processes left): down removed it all"
}
# (what a task of cluster-ping that runs on our cluster looks like)
pinging() {
    local p n=0
    for p in $(pgrep -x cluster-ping); do
        grep -qzxF "AN2_CLUSTER=$S" "/proc/$p/environ" 2>/dev/null && n=$((n + 1))
    done
    ((n >= 4))
}
# the cells switch SW's host ports have taken in (what the tasks of its hosts sent over AN2)
switch_cells() { # SW
    "$BIN/an2stat" --switch "$S/$1/ctl" 2>/dev/null | awk '$2 == "host" { n += $9 } END { print n + 0 }'
}
# its 4 tasks run and talk: messages (300 KB ones among them) to h2 (on sw1) and to h3 (on sw2)
# have crossed both switches
talking() { pinging && (($(switch_cells sw1) > 20000 && $(switch_cells sw2) > 20000)); }
crash_at "up: the hosts made" "bash '$CL' up 3 --switches 2" test -e "$S/config"
crash_at "up: the an2ds starting" "bash '$CL' up 3 --switches 2" test -S "$S/h2/tmp/an2d.sock"
crash_at "a script whose tasks talk" \
    "bash '$CL' up 3 --switches 2 --rate oc3 && exec bash '$CL' exec h1 -- cluster-ping 100000" talking

echo "cluster_pvm: all ok"
