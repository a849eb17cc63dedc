# fabric_hosts_lib.sh — sourced by the fabric-hosts tests: emulated hosts (scripts/hosts.sh),
# an2switch processes and an an2d per host attached to a switch over TCP, or with
# AN2_FH_CARRIER=shm in shared memory; everything is stopped and removed at the end, also on
# failure or timeout.
#   fh_switch NAME HOST [an2switch options]   a switch listening on HOST's port 7000 (and, with
#                                             AN2_FH_CARRIER=shm, on shm:$T/link-HOST.sock)
#   fh_an2d HOST SWITCH_ADDR [an2d options]   HOST's an2d (daemon), attached to the switch
#   fh_addr ADDR                              the link address daemons use for ADDR: with
#                                             AN2_FH_CARRIER=shm, NAME:7000 becomes
#                                             shm:$T/link-NAME.sock (the hosts share this
#                                             machine); other addresses stay. Peers that speak
#                                             the protocol themselves (link_peer.py) use TCP.
#   fh_sock HOST                              HOST's an2d control socket
#   fh_in HOST CMD...                         runs CMD inside HOST's namespace
#   fh_up HOST...                             makes the hosts (scripts/hosts.sh)
#   fh_switch_shows NAME REGEX                waits until the switch's an2stat shows REGEX
#                                             (status 1 if it never does)
set -euo pipefail
FH_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FH_SRC=${AN2_SOURCE_DIR:-$(cd "$FH_HERE/../.." && pwd)}
BIN=${AN2_BUILD_DIR:?run under ctest (AN2_BUILD_DIR)}/bin
TBIN=$AN2_BUILD_DIR/driver/tests

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces)"
ip netns add "an2fh$$-probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "an2fh$$-probe"

mkdir -p "$AN2_BUILD_DIR/test-tmp"
T=$(mktemp -d "$AN2_BUILD_DIR/test-tmp/hosts.XXXXXX")
# the fabric's key: every switch's and an2d's links prove themselves with it
FH_KEY=$T/link.key
(umask 077 && head -c 32 /dev/urandom >"$FH_KEY")
export AN2_AUTH=key:$FH_KEY
FH_SWITCHES=()
FH_HOSTS=()
FH_EXTRA_STOP=()   # functions that stop what a test started itself
fh_stop_all() {
    local h s f
    for f in "${FH_EXTRA_STOP[@]}"; do "$f"; done
    for h in "${FH_HOSTS[@]}"; do "$BIN/an2d" --socket "$T/$h/an2d.sock" --stop >/dev/null 2>&1 || :; done
    for s in "${FH_SWITCHES[@]}"; do "$BIN/an2switch" --stop --pid-file "$T/$s.pid" >/dev/null 2>&1 || :; done
}
fh_on_exit() {
    local rc=$?
    # the daemons' own stderr is in their logs: a sanitizer's report there fails the test
    if [[ $rc == 0 ]] && grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" \
            "$T"/*.log 2>/dev/null; then
        echo "FAIL: a daemon's sanitizer report (above: its log)" >&2
        rc=1
    fi
    if [[ $rc != 0 && -d $T ]]; then # the daemons' logs say what happened
        for f in "$T"/*.log; do [[ -e $f ]] && { echo "--- $(basename "$f")"; tail -n 15 "$f"; } >&2; done
    fi
    [[ -n ${FH_KEEP:-} ]] || rm -rf "$T"
    exit "$rc"
}
trap fh_on_exit EXIT
# shellcheck source=/dev/null
source "$FH_SRC/scripts/hosts.sh"
export HOSTS_LIMIT=${HOSTS_LIMIT:-100}

FH_CARRIER=${AN2_FH_CARRIER:-stream}
[[ $FH_CARRIER == stream || $FH_CARRIER == shm || $FH_CARRIER == ofi ]] ||
    fail "AN2_FH_CARRIER: stream, shm or ofi"
echo "links between daemons: carrier $FH_CARRIER"

fh_in() { local h=$1; shift; hosts_exec "$h" "$@"; }
# fh_addr HOST:7000: where the daemons reach the switch at HOST with the test's carrier (the
# switch listens at :7000 for TCP links whatever the carrier, at :7001 for libfabric ones)
fh_addr() {
    if [[ $FH_CARRIER == shm && $1 =~ ^([a-z][a-z0-9-]*):7000$ ]]; then
        echo "shm:$T/link-${BASH_REMATCH[1]}.sock"
    elif [[ $FH_CARRIER == ofi && $1 =~ ^(.+):7000$ ]]; then
        echo "ofi:${BASH_REMATCH[1]}:7001"
    else
        echo "$1"
    fi
}
fh_sock() { echo "$T/$1/an2d.sock"; }

# fh_switch NAME HOST [options]: an2switch NAME in HOST's namespace, listening on port 7000
fh_switch() {
    local name=$1 host=$2 args=()
    shift 2
    FH_SWITCHES+=("$name")
    [[ $FH_CARRIER == shm ]] && args+=(--listen "shm:$T/link-$host.sock")
    [[ $FH_CARRIER == ofi ]] && args+=(--listen "ofi::7001")
    while (($#)); do
        if [[ $1 == --trunk ]]; then args+=(--trunk "$(fh_addr "$2")"); shift 2
        else args+=("$1"); shift; fi
    done
    hosts_exec "$host" "$BIN/an2switch" --listen :7000 --pid-file "$T/$name.pid" \
        --log-file "$T/$name.log" --control "$T/$name.ctl" "${args[@]}" </dev/null >>"$T/$name.log" 2>&1 &
    hosts_wait_for 300 test -S "$T/$name.ctl" && return 0
    fail "switch $name did not start"
}

# fh_an2d HOST SWITCH_ADDR [options]: HOST's an2d, attached (it returns once the switch said HELLO)
fh_an2d() {
    local host=$1 sw
    sw=$(fh_addr "$2")
    shift 2
    FH_HOSTS+=("$host")
    hosts_exec "$host" "$BIN/an2d" -d --socket "$T/$host/an2d.sock" --switch "$sw" \
        --log-file "$T/$host.log" "$@" </dev/null || fail "an2d on $host did not start"
}

# fh_switch_shows NAME REGEX: waits (up to 30 s) until an2stat --switch for NAME shows REGEX
fh_switch_shows() { hosts_wait_for 300 _fh_switch_shows_now "$@"; }
_fh_switch_shows_now() { "$BIN/an2stat" --switch "$T/$1.ctl" 2>/dev/null | grep -q "$2"; }

# fh_log_shows NAME REGEX: waits (up to 30 s) until $T/NAME.log has a line matching REGEX
fh_log_shows() { hosts_wait_for 300 grep -q "$2" "$T/$1.log"; }

# fh_up HOST...: the hosts, with the daemons stopped before they go
fh_up() {
    hosts_up "$@"
    hosts_on_exit fh_stop_all
}
