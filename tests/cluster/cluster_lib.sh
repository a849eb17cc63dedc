# cluster_lib.sh — the harness the cluster tests (tests/cluster, ctest label hosts) share: skips
# unless root with network namespaces and Debian's pvm; gives each test its own cluster state
# (AN2_CLUSTER_STATE, per build tree and test), a scratch dir T, and an EXIT trap that takes
# the cluster down and fails the test if anything of it is left (hosts run, namespace,
# /etc/netns entry, watchdog, process). Source it from a test script after `set -euo pipefail`:
#   CLUSTER_TEST=NAME; source cluster_lib.sh
# Then: fail/ok/skip, CL (scripts/cluster.sh), BIN (build/bin), S (the state), remember,
# leftovers, assert_clean WHAT, cluster_fresh (removes what a killed earlier run left), on HOST
# -- CMD (cluster.sh exec), cells_from HOST (what its port of sw1 took in), cluster_finish NAME.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${AN2_SOURCE_DIR:-$(cd "$HERE/../.." && pwd)}
CL=$SRC/scripts/cluster.sh
BIN=${AN2_BUILD_DIR:?run under ctest (AN2_BUILD_DIR)}/bin

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces)"
ip netns add "an2cl$$-probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "an2cl$$-probe"
if [[ ! -x /usr/lib/pvm3/lib/pvmd ]] || ! command -v pvm >/dev/null; then skip "needs Debian's pvm"; fi

AN2_CLUSTER_STATE=/run/an2-cluster-${CLUSTER_TEST:?}.$(cksum <<<"$AN2_BUILD_DIR" | cut -d' ' -f1)
export AN2_CLUSTER_STATE
export AN2_BUILD_DIR
S=$AN2_CLUSTER_STATE
T=$(mktemp -d "$AN2_BUILD_DIR/cluster-$CLUSTER_TEST.XXXXXX")
TAG="an2-cluster:$S"
UP_PID=''

# shellcheck source=/dev/null # scripts/hosts.sh (for hosts_wait_for)
source "$SRC/scripts/hosts.sh"

# our hosts.sh runs (persistent, tagged with our state directory)
our_runs() {
    local d
    for d in /run/an2-hosts/net-*; do
        [[ -r $d/persist && $(<"$d/persist") == "$TAG" ]] && echo "$d"
    done
    return 0
}

# remember PREFIX (namespace names) and INODES (the namespaces themselves) of our runs
PREFIXES='' INODES='' RUNS=''
remember() {
    local d p n
    for d in $(our_runs); do
        [[ " $RUNS " == *" $d "* ]] || RUNS+=" $d"
        p=$(cat "$d/prefix" 2>/dev/null) || continue
        [[ " $PREFIXES " == *" $p "* ]] || PREFIXES+=" $p"
        for n in /run/netns/"$p"*; do
            [[ -e $n ]] || continue
            n=$(stat -L -c %i "$n")
            [[ " $INODES " == *" $n "* ]] || INODES+=" $n"
        done
    done
    return 0
}

# leftovers: what of our clusters is left (empty if nothing)
leftovers() {
    local p i named
    [[ ! -e $S ]] || echo "state $S"
    our_runs | sed 's/^/hosts run /'
    for p in $RUNS; do pgrep -af -- "--watchdog $p\$" | sed 's/^/watchdog /' || :; done
    for p in $PREFIXES; do
        compgen -G "/run/netns/$p*" | sed 's/^/namespace /' || :
        compgen -G "/etc/netns/$p*" | sed 's/^/file /' || :
    done
    # a process with our mark, or one whose arguments name our state
    grep -lzxF "AN2_CLUSTER=$S" /proc/[0-9]*/environ 2>/dev/null | sed 's/^/marked process /' || :
    pgrep -af -- "$S" | grep -v "^$$ " | sed 's/^/process /' || :
    # a process still inside one of our namespaces (a freed inode may belong to a named
    # namespace of another run by now: those are not ours)
    named=" $( (stat -L -c %i /run/netns/* 2>/dev/null || :) | tr '\n' ' ') "
    for i in $INODES; do
        [[ $named == *" $i "* ]] && continue
        { stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null || :; } |
            awk -v i="$i" '$1 == i {print "process in namespace " i ": " $2}'
    done
    return 0
}

on_exit() {
    local rc=$? left
    trap - EXIT
    set +e
    [[ -n $UP_PID ]] && kill -KILL "$UP_PID" 2>/dev/null
    remember
    if ((rc != 0)) && [[ -d $S ]]; then # the daemons' logs, shown below
        for f in "$S"/h*/tmp/pvml.*; do [[ -f $f ]] && cp "$f" "$T/pvmd-$(basename "${f%/tmp/*}").log"; done
        for f in "$S"/h*/an2d.log; do [[ -f $f ]] && cp "$f" "$T/an2d-$(basename "${f%/an2d.log}").log"; done
    fi
    if [[ -e $S || -n $(our_runs) ]]; then
        bash "$CL" down >>"$T/down.log" 2>&1
    fi
    left=$(leftovers)
    if [[ -n $left ]]; then
        echo "FAIL: left behind at the end: $left" >&2
        rc=1
    fi
    if ((rc != 0)); then
        for f in "$T"/*.log "$T"/*.out; do [[ -e $f ]] && { echo "--- $(basename "$f")"; tail -n 20 "$f"; } >&2; done
    fi
    rm -rf "$T"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

assert_clean() { # WHAT
    local left
    left=$(leftovers)
    [[ -z $left ]] || fail "$1 left behind: $left"
}

# an earlier run of this test that was killed left its cluster: remove it first
cluster_fresh() {
    [[ -e $S || -n $(our_runs) ]] || return 0
    remember
    bash "$CL" down >"$T/down.log" 2>&1 || fail "down of an earlier run's cluster: $(cat "$T/down.log")"
    assert_clean "down of an earlier run's cluster"
    ok "removed the cluster an earlier run of this test left"
}

on() { bash "$CL" exec "$@"; } # on HOST -- CMD...

# the cells host hN's port of sw1 (port N-1) has taken in: what its tasks sent over AN2
cells_from() { # HOST
    local port=$((${1#h} - 1))
    "$BIN/an2stat" --switch "$S/sw1/ctl" 2>/dev/null |
        awk -v p="$port" '$1 == p && $2 == "host" { print $9; found = 1 } END { if (!found) print 0 }'
}

# the end of a test that went well: no sanitizer report from a task (spawned tasks write to
# the master pvmd's log), the cluster down, nothing left
cluster_finish() { # NAME
    if grep -E "Sanitizer|runtime error" "$S"/h*/tmp/pvml.* >&2; then
        fail "a sanitizer report from a task (above)"
    fi
    bash "$CL" down >"$T/down.log" 2>&1 || fail "down: $(cat "$T/down.log")"
    assert_clean "down"
    echo "$1: all ok"
}
