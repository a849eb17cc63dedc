#!/usr/bin/env bash
# Test of scripts/hosts.sh's persistent runs (HOSTS_PERSIST=1, what scripts/cluster.sh stands on;
# ctest label hosts): the hosts outlive the shell that made them, which installed no traps;
# hosts_reap leaves them alone; a later shell finds them by tag, attaches, uses them and removes
# them with hosts_down (or `hosts.sh --down DIR`), leaving nothing; at HOSTS_LIMIT the watchdog
# removes a forgotten run. Root only (network namespaces): otherwise exit 77 (skipped).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${AN2_SOURCE_DIR:-$(cd "$HERE/../.." && pwd)}
LIB=$SRC/scripts/hosts.sh

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces)"
ip netns add "an2hp$$-probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "an2hp$$-probe"

TAG="hosts-persist-test:$$"
# shellcheck source=/dev/null # scripts/hosts.sh
source "$LIB"

# on any exit: whatever of ours is left goes (and fails the test if the test did not fail yet)
on_exit() {
    local rc=$? d
    trap - EXIT
    set +e
    for d in $(hosts_tagged "$TAG"); do
        echo "FAIL: left behind: $d" >&2
        (hosts_attach "$d" && hosts_down)
        rc=1
    done
    exit "$rc"
}
trap on_exit EXIT


# make_run LIMIT: a shell makes two persistent hosts and ends; prints the run's state directory
make_run() {
    local out
    # shellcheck disable=SC2016 # expanded by the inner shell
    out=$(HOSTS_PERSIST=1 HOSTS_TAG=$TAG HOSTS_LIMIT=$1 bash -c '
        set -euo pipefail
        source "$1"
        hosts_up pa pb >&2
        [[ -z $(trap -p EXIT) && -z $(trap -p TERM) ]] || { echo "traps installed" >&2; exit 1; }
        echo "$HOSTS_STATE"' _ "$LIB") || fail "a persistent hosts_up failed"
    echo "$out"
}

# nothing_left DIR PREFIX: no state, namespace, /etc/netns entry or watchdog of that run
nothing_left() {
    [[ ! -e $1 ]] && ! compgen -G "/run/netns/$2*" >/dev/null && ! compgen -G "/etc/netns/$2*" >/dev/null &&
        ! pgrep -f -- "--watchdog $1\$" >/dev/null
}

# --- a run outlives its shell, is found by tag, used and removed -----------------------------
t0=$SECONDS
dir=$(make_run 60)
took=$((SECONDS - t0)) # how long a hosts_up takes here and now (for the HOSTS_LIMIT case)
prefix=$(<"$dir/prefix")
[[ -d $dir && -e /run/netns/${prefix}pa && -e /run/netns/${prefix}pb ]] || fail "the hosts went with their shell"
hosts_reap 2>/dev/null
[[ -d $dir && -e /run/netns/${prefix}pa ]] || fail "hosts_reap removed a persistent run"
[[ $(hosts_tagged "$TAG") == "$dir" ]] || fail "hosts_tagged: '$(hosts_tagged "$TAG")', not $dir"
ok "the hosts outlive their shell (no traps); hosts_reap leaves them; hosts_tagged finds them"

(
    hosts_attach "$dir"
    [[ $HOSTS_NAMES == "pa pb" && $HOSTS_PREFIX == "$prefix" ]] || fail "attach: names '$HOSTS_NAMES'"
    [[ $(hosts_exec pa hostname) == pa ]] || fail "hosts_exec pa hostname"
    [[ $(hosts_exec pa getent ahostsv4 pb | awk 'NR == 1 {print $1}') == "$(hosts_ip pb)" ]] ||
        fail "pa does not resolve pb to $(hosts_ip pb)"
    hosts_shape pb 100mbit || fail "hosts_shape after attach"
    hosts_down || fail "hosts_down after attach"
    [[ -z ${HOSTS_STATE:-} ]] || fail "hosts_down left HOSTS_STATE set"
) || exit 1
hosts_wait_for 100 nothing_left "$dir" "$prefix" || fail "hosts_down after attach left something of $dir"
ok "a later shell attaches, runs commands in the hosts (names resolve), shapes a link, removes them: nothing left"

# --- bash hosts.sh --down DIR ------------------------------------------------------------------
dir=$(make_run 60)
prefix=$(<"$dir/prefix")
hosts_exec_in() { ip netns exec "${prefix}$1" "${@:2}"; }
hosts_exec_in pa sleep 300 2>/dev/null & # a process inside: --down must end it (no "Terminated")
sleeper=$!
bash "$LIB" --down "$dir" || fail "hosts.sh --down $dir"
wait "$sleeper" 2>/dev/null || :
hosts_wait_for 100 nothing_left "$dir" "$prefix" || fail "hosts.sh --down left something of $dir"
bash "$LIB" --down "$dir" 2>/dev/null && fail "hosts.sh --down of a removed run succeeded"
ok "bash hosts.sh --down DIR removes a run with a process inside; a second time it says no"

# --- a forgotten run goes at HOSTS_LIMIT ---------------------------------------------------------
# (the limit counts from before hosts_up makes the hosts: it must be well past the time that
# takes here, measured above, else the watchdog ends hosts_up itself)
limit=$((took * 4 + 4))
t0=$SECONDS
dir=$(make_run "$limit")
prefix=$(<"$dir/prefix") || fail "the ${limit}-s run went before hosts_up returned (it took $((SECONDS - t0)) s)"
[[ -e /run/netns/${prefix}pa ]] || fail "the ${limit}-s run is not up (hosts_up took $((SECONDS - t0)) s)"
hosts_wait_for $(((limit + 30) * 10)) nothing_left "$dir" "$prefix" ||
    fail "the watchdog did not remove the run at HOSTS_LIMIT=$limit"
ok "a persistent run with HOSTS_LIMIT=$limit is removed by its watchdog"

echo "hosts_persist: all ok"
