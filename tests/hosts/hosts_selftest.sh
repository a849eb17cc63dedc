#!/usr/bin/env bash
# Self-test of scripts/hosts.sh (ctest label fabric-hosts): three emulated hosts resolve each
# other's names, talk TCP over IPv4 and IPv6, lose and regain a link, get shaped; nothing is left
# after hosts_down, nor after a SIGTERM, a set -e failure, a SIGKILL or HOSTS_LIMIT.
# Needs root and python3 (tests/hosts/tcp_probe.py is the listener and client; Debian package
# python3-minimal); without either it exits 77, which ctest reports as skipped.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${AN2_SOURCE_DIR:-$(cd "$HERE/../.." && pwd)}
LIB=$SRC/scripts/hosts.sh
PROBE=$HERE/tcp_probe.py
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; else PY=$(command -v python3 || :); fi

skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces)"
[[ -n $PY ]] || skip "needs python3 (apt-get install python3-minimal)"
ip netns add "an2h$$-probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "an2h$$-probe"

T=$(mktemp -d "${AN2_BUILD_DIR:-/tmp}/hosts-test.XXXXXX")
KIDS=()
# our own clean-up, set before hosts_up: hosts.sh must chain it, not replace it
on_exit() {
    local rc=$?
    local k
    for k in "${KIDS[@]}"; do kill -KILL "$k" 2>/dev/null || :; done
    [[ -n ${KEEP_T:-} ]] || rm -rf "$T"
    exit "$rc"
}
trap on_exit EXIT
ORIG_EXIT_TRAP=$(trap -p EXIT)

# shellcheck source=/dev/null # scripts/hosts.sh
source "$LIB"
export HOSTS_LIMIT=40 # this whole test takes ~10 s; a hang is torn down anyway

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { echo "ok: $*"; }


# the veths in the root namespace before we start: ours must never appear there
root_veths() { ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
root_veths >"$T/veths.before"

# ns_inodes PREFIX: the inode of each of its namespaces (a process still inside one shows it)
ns_inodes() {
    local ns
    for ns in /run/netns/"$1"*; do
        [[ -e $ns ]] && stat -L -c %i "$ns"
    done
    return 0
}

# alive PID: PID runs (a zombie waiting for PID 1 to reap it does not count)
alive() { kill -0 "$1" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }

# leftovers PREFIX STATE "INODES" "PIDS": prints what of that run is left; empty if nothing
leftovers() {
    local prefix=$1 state=$2 inodes=$3 pids=$4 i p named
    compgen -G "/run/netns/$prefix*" | sed 's/^/namespace /' || :
    compgen -G "/etc/netns/$prefix*" | sed 's/^/file /' || :
    [[ ! -e $state ]] || echo "state $state"
    root_veths | comm -13 "$T/veths.before" - | sed 's/^/root veth /'
    if [[ -n $inodes ]]; then
        # a freed namespace's inode number is reused: a match that is now the inode of a named
        # namespace (ours have no names any more) belongs to another run
        named=$( (stat -L -c %i /run/netns/* 2>/dev/null || :) | sort -u | tr '\n' ' ')
        for i in $inodes; do
            [[ " $named " == *" $i "* ]] && continue
            stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null | awk -v i="$i" '$1 == i {split($2, f, "/"); print f[3]}' |
                while read -r p; do echo "process in namespace $i: $(ps -o pid=,ppid=,stat=,etime=,args= -p "$p")"; done
        done
    fi
    for p in $pids; do
        if alive "$p"; then echo "process $(ps -o pid=,ppid=,stat=,etime=,args= -p "$p")"; fi
    done
    pgrep -f -- "--watchdog $state\$" | sed 's/^/watchdog /' || :
}

nothing_left() { [[ -z $(leftovers "$@") ]]; }

assert_clean() { # WHAT PREFIX STATE INODES PIDS
    local what=$1 left
    shift
    left=$(leftovers "$@")
    [[ -z $left ]] || fail "$what left behind: $left"
}

# --- the scripts that end badly (case 2, 3) start first: their runs overlap case 1 -----------

cat >"$T/child.sh" <<'EOF'
# child.sh LIB OUT MODE: hosts_up, a process inside, then end by MODE
set -euo pipefail
source "$1"
out=$2 mode=$3
trap 'echo caller-exit-trap >>"$out.log"' EXIT
hosts_up x y
hosts_on_exit 'echo hook >>"$out.log"'
hosts_exec x sleep 300 &
inner=$!
hosts_wait_for 300 eval '[[ -n $(ip netns pids "$(hosts_ns x)") ]]' || { echo "no process inside x" >&2; exit 3; }
inodes=$(for n in /run/netns/"$HOSTS_PREFIX"*; do stat -L -c %i "$n"; done | tr '\n' ' ')
printf '%s\n%s\n%s\n%s\n' "$HOSTS_PREFIX" "$HOSTS_STATE" "$inodes" "$inner" >"$out.info.tmp"
mv "$out.info.tmp" "$out.info"
case $mode in
    errexit) false ;;
    *) read -r -t 300 _ <> <(:) || : ;; # a builtin: no sleep process outlives a SIGKILL
esac
echo "not reached" >>"$out.log"
EOF

# each child runs under a wrapper that records its pid and exit status (and keeps bash's
# "Killed" notices out of the log)
declare -A CHILD WRAP
# (the limit counts from before hosts_up makes the hosts, five runs at once: well past that)
LIMIT=12
for mode in term errexit kill limit reap; do
    limit=40
    [[ $mode == limit ]] && limit=$LIMIT
    {
        HOSTS_LIMIT=$limit bash "$T/child.sh" "$LIB" "$T/$mode" "$mode" 2>"$T/$mode.err" &
        echo $! >"$T/$mode.pid"
        st=0
        wait $! || st=$?
        echo $st >"$T/$mode.st"
    } 2>/dev/null &
    WRAP[$mode]=$!
    KIDS+=($!)
done
for mode in term errexit kill limit reap; do
    hosts_wait_for 50 test -s "$T/$mode.pid" || fail "child $mode did not start"
    CHILD[$mode]=$(<"$T/$mode.pid")
    KIDS+=("${CHILD[$mode]}")
done
# --- case 1: three hosts ------------------------------------------------------------------

hosts_up alpha beta gamma
PREFIX=$HOSTS_PREFIX STATE=$HOSTS_STATE
INODES=$(ns_inodes "$PREFIX")
[[ $(wc -w <<<"$INODES") == 4 ]] || fail "expected 4 namespaces (3 hosts + bridge), got: $INODES"
[[ $(hosts_names | tr '\n' ' ') == "alpha beta gamma " ]] || fail "hosts_names"
for h in alpha beta gamma; do
    [[ $(hosts_ns "$h") == "$PREFIX$h" ]] || fail "hosts_ns $h"
    [[ $(hosts_ip "$h") == "${HOSTS_NET4%.0/24}."* ]] || fail "hosts_ip $h = $(hosts_ip "$h")"
    [[ $(hosts_ip6 "$h") == "${HOSTS_NET6%::/64}::"* ]] || fail "hosts_ip6 $h = $(hosts_ip6 "$h")"
done
[[ $(trap -p EXIT) == *_hosts_trap* ]] || fail "hosts_up installed no EXIT trap"
hosts_ns nosuch 2>/dev/null && fail "hosts_ns of an unknown host succeeded"
hosts_up alpha 2>/dev/null && fail "a second hosts_up in the same shell succeeded"
( hosts_down 2>/dev/null ) && fail "hosts_down in another process than the owner succeeded"
ok "hosts_up: 3 hosts + bridge in $PREFIX*, $HOSTS_NET4, $HOSTS_NET6"

# names: every host resolves every host, in both families; hostname; no way out
for h in alpha beta gamma; do
    [[ $(hosts_exec "$h" hostname) == "$h" ]] || fail "hostname in $h"
    for o in alpha beta gamma; do
        a=$(hosts_exec "$h" getent ahostsv4 "$o" | awk 'NR == 1 {print $1}')
        [[ $a == "$(hosts_ip "$o")" ]] || fail "$h resolves $o to '$a', not $(hosts_ip "$o")"
        a=$(hosts_exec "$h" getent ahostsv6 "$o" | awk 'NR == 1 {print $1}')
        [[ $a == "$(hosts_ip6 "$o")" ]] || fail "$h resolves $o (IPv6) to '$a', not $(hosts_ip6 "$o")"
    done
    [[ -z $(hosts_exec "$h" ip -4 route show default) ]] || fail "$h has an IPv4 default route"
    [[ -z $(hosts_exec "$h" ip -6 route show default) ]] || fail "$h has an IPv6 default route"
    links=$(hosts_exec "$h" ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | sort | tr '\n' ' ')
    [[ $links == "eth0 lo " ]] || fail "$h has links: $links"
done
hosts_exec alpha getent hosts nosuch.example >/dev/null && fail "alpha resolved an outside name"
ok "each host resolves all three names (IPv4 and IPv6), is named itself, has no route out"

# TCP between alpha and beta, by name, over IPv4 and IPv6
hosts_exec beta "$PY" "$PROBE" serve 5555 10 20 >"$T/serve.out" 2>&1 &
KIDS+=($!)
SERVER=$!
hosts_wait_for 50 grep -qs ready "$T/serve.out" || fail "listener in beta: $(cat "$T/serve.out")"
probe() { hosts_exec alpha "$PY" "$PROBE" connect "$@"; }
r=$(probe -4 beta 5555 3) || fail "alpha -> beta IPv4"
[[ $r == "beta $(hosts_ip alpha) 0 "* ]] || fail "alpha -> beta IPv4 answered '$r'"
r=$(probe -6 beta 5555 3) || fail "alpha -> beta IPv6"
[[ $r == "beta $(hosts_ip6 alpha) 0 "* ]] || fail "alpha -> beta IPv6 answered '$r'"
ok "TCP alpha -> beta over IPv4 and IPv6"

hosts_link_down beta
probe -4 beta 5555 0.5 2>/dev/null && fail "IPv4 connect to beta succeeded with its link down"
probe -6 beta 5555 0.5 2>/dev/null && fail "IPv6 connect to beta succeeded with its link down"
hosts_link_up beta
hosts_wait_for 5 probe -4 beta 5555 2 >/dev/null || fail "IPv4 to beta did not come back after link_up"
hosts_wait_for 5 probe -6 beta 5555 2 >/dev/null || fail "IPv6 to beta did not come back after link_up"
ok "hosts_link_down cuts beta off, hosts_link_up brings it back"

# shaping: 1.5 MB from alpha at 20 Mbit/s takes ~0.6 s; unshaped a few ms
hosts_shape alpha 20mbit
hosts_exec alpha tc qdisc show dev eth0 | grep -q 'tbf .*rate 20Mbit' || fail "no tbf on alpha"
r=$(probe -4 beta 5555 10 1500000) || fail "shaped transfer"
read -r _ _ got secs <<<"$r"
[[ $got == 1500000 ]] || fail "shaped transfer: beta got '$got' bytes"
awk -v t="$secs" 'BEGIN {exit !(t >= 0.4)}' || fail "1.5 MB at 20 Mbit/s took only $secs s"
hosts_unshape alpha
hosts_exec alpha tc qdisc show dev eth0 | grep -q tbf && fail "tbf still on alpha after hosts_unshape"
hosts_unshape alpha # twice is fine
ok "hosts_shape: 1.5 MB at 20 Mbit/s took $secs s; hosts_unshape removes it"

# shaping with a port let through: TCP to it bypasses the tbf, other TCP still goes through it
# (told by the qdiscs' byte counters, not by the clock)
for port in 5556 5557; do
    hosts_exec beta "$PY" "$PROBE" serve $port 1 30 >"$T/serve$port.out" 2>&1 &
    KIDS+=($!)
    hosts_wait_for 50 grep -qs ready "$T/serve$port.out" || fail "listener $port in beta: $(cat "$T/serve$port.out")"
done
hosts_shape alpha 20mbit 0 2>/dev/null && fail "hosts_shape took port 0"
hosts_shape alpha 20mbit 5556 || fail "hosts_shape alpha 20mbit 5556"
tbf_bytes() { hosts_exec alpha tc -s qdisc show dev eth0 | awk '/^qdisc tbf/ {t = 1} t && /Sent/ {print $2; exit}'; }
before=$(tbf_bytes)
[[ -n $before ]] || fail "no tbf under alpha's htb: $(hosts_exec alpha tc qdisc show dev eth0)"
r=$(probe -6 beta 5556 10 1500000) || fail "transfer to the port let through"
[[ $r == "beta "*" 1500000 "* ]] || fail "transfer to the port let through: beta answered '$r'"
through=$(( $(tbf_bytes) - before ))
(( through < 300000 )) || fail "$through bytes to the port let through went through the tbf"
before=$(tbf_bytes)
r=$(probe -4 beta 5557 10 300000) || fail "shaped transfer beside the port let through"
shaped=$(( $(tbf_bytes) - before ))
(( shaped >= 300000 )) || fail "only $shaped bytes of 300000 to another port went through the tbf"
hosts_unshape alpha
hosts_exec alpha tc qdisc show dev eth0 | grep -Eq 'tbf|htb' && fail "shaping still on alpha after hosts_unshape"
ok "hosts_shape with a port: 1.5 MB to it bypassed the tbf ($through bytes in it), other TCP did not ($shaped bytes)"

# a process left running in a host, and the listener: hosts_down must end both
hosts_exec gamma sleep 300 2>/dev/null & # (no "Terminated" from its subshell)
INNER=$!
KIDS+=("$INNER")
has_pids() { [[ -n $(ip netns pids "$1") ]]; }
hosts_wait_for 20 has_pids "${PREFIX}gamma" || fail "no process in gamma"
hosts_down
wait "$SERVER" 2>/dev/null || :
wait "$INNER" 2>/dev/null || :
assert_clean "hosts_down" "$PREFIX" "$STATE" "$INODES" "$INNER $SERVER"
[[ $(trap -p EXIT) == "$ORIG_EXIT_TRAP" ]] || fail "hosts_down did not give the EXIT trap back: $(trap -p EXIT)"
[[ -z $(trap -p TERM) ]] || fail "hosts_down left a TERM trap: $(trap -p TERM)"
hosts_down # idempotent
ok "hosts_down removed namespaces, /etc/netns entries, state, processes; traps restored"

# a hosts_up that fails halfway (a veth name the kernel refuses) removes what it made
hosts_up 9lives 2>/dev/null && fail "hosts_up accepted a numeric-looking name"
(
    # shellcheck disable=SC2034 # read by hosts.sh
    HOSTS_DEV="a-name-too-long-for-linux"
    # shellcheck disable=SC2016 # expanded when the hook runs
    hosts_on_exit 'echo "$HOSTS_STATE $HOSTS_PREFIX" >"$T/fail.state"'
    hosts_up f1 f2 2>"$T/fail.err"
) && fail "hosts_up succeeded with a bad interface name"
grep -q "failed: ip .* veth" "$T/fail.err" || fail "hosts_up failed otherwise: $(cat "$T/fail.err")"
read -r fstate fprefix <"$T/fail.state"
assert_clean "a failed hosts_up" "$fprefix" "$fstate" "" ""
ok "a hosts_up that fails halfway leaves nothing"

# --- case 2: scripts that end badly, four at once --------------------------------------------

for mode in term kill; do
    hosts_wait_for 100 test -e "$T/$mode.info" || fail "child $mode did not get its hosts up: $(cat "$T/$mode.err")"
done
kill -TERM "${CHILD[term]}"
kill -KILL "${CHILD[kill]}"
for mode in term errexit kill limit; do
    hosts_wait_for 300 test -s "$T/$mode.st" || fail "child $mode still runs"
    wait "${WRAP[$mode]}" || :
    st=$(<"$T/$mode.st")
    [[ -e $T/$mode.info ]] || fail "child $mode never got its hosts up: $(cat "$T/$mode.err")"
    mapfile -t info <"$T/$mode.info"
    case $mode in
        term) want_st=143 want_log=$'hook\ncaller-exit-trap' ;;
        errexit) want_st=1 want_log=$'hook\ncaller-exit-trap' ;;
        kill) want_st=137 want_log= ;;
        limit) want_st=143 want_log=$'hook\ncaller-exit-trap' ;;
    esac
    [[ $st == "$want_st" ]] || fail "child $mode exited $st, not $want_st: $(cat "$T/$mode.err")"
    log=$(cat "$T/$mode.log" 2>/dev/null || :)
    [[ $log == "$want_log" ]] || fail "child $mode: hooks and traps ran as '${log//$'\n'/, }'"
    # after SIGKILL the watchdog tears down, within a second or so
    hosts_wait_for 100 nothing_left "${info[@]}" || :
    assert_clean "child $mode" "${info[0]}" "${info[1]}" "${info[2]}" "${info[3]}"
    ok "child $mode: exit $st, hooks/traps '${log//$'\n'/, }', nothing left"
done
grep -q "HOSTS_LIMIT=${LIMIT}s reached" "$T/limit.err" || fail "no HOSTS_LIMIT message: $(cat "$T/limit.err")"

# --- case 3: the shell and its watchdog both SIGKILLed: the next hosts_reap removes the rest ---

hosts_wait_for 100 test -e "$T/reap.info" || fail "child reap did not get its hosts up: $(cat "$T/reap.err")"
mapfile -t info <"$T/reap.info"
wd=$(<"${info[1]}/watchdog")
kill -KILL "$wd" "${CHILD[reap]}"
wait "${WRAP[reap]}" || :
hosts_wait_for 100 eval '! alive "$wd"' || fail "the reap child's watchdog $wd outlived SIGKILL"
by="hosts_reap"
# (a concurrent run's hosts_up may have reaped it already: it calls hosts_reap too)
[[ -e ${info[1]} ]] || by="a concurrent run's hosts_up"
hosts_reap 2>/dev/null
assert_clean "hosts_reap" "${info[@]}"
ok "a run whose shell and watchdog were both SIGKILLed: removed by $by"

echo "hosts selftest: all ok"
