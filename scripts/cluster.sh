#!/usr/bin/env bash
# cluster.sh — a cluster of emulated hosts on this one machine for PVM over AN2: network namespaces
# (scripts/hosts.sh), an an2switch or several, an an2d per host, Debian's stock pvmd on every host.
#
#   scripts/cluster.sh up N [--rate RATE] [--switches K] [--ep DIRS] [--ber BER] [--in-session]
#                           [--carrier shm|tcp|ofi]
#   scripts/cluster.sh exec HOST [--] CMD...   run CMD on HOST (its namespace, its PVM environment)
#   scripts/cluster.sh env HOST                print HOST's environment as `export VAR=...` lines
#   scripts/cluster.sh status                  hosts, addresses, switches, pvmd and an2d state
#   scripts/cluster.sh down                    stop and remove everything (also after a crash)
#   scripts/cluster.sh rsh HOST [-l USER] CMD  the cluster's PVM_RSH (pvmd runs it)
#
# up N makes hosts h1..hN and switch hosts sw1..swK (K = --switches, default 1, at most N and 8),
# each a network namespace whose /etc/hosts lists every host (IPv4 first for PVM). Switch swK
# runs `an2switch --listen shm:STATE/swK/link --listen :7000 --id K --auth key:STATE/link.key`;
# the daemons' links go over the shared-memory carrier (all the hosts share this machine), with
# --carrier tcp over TCP to port 7000 on the veths, or with --carrier ofi over libfabric's
# network carrier (the switches also listen at ofi::7001); with K > 1 the hosts are split into K consecutive
# groups (h1.. on sw1, the last ones on swK) and every switch keeps a trunk to each switch with
# a lower id (docs/fabric.md: how switches route). Each host hI gets:
#   - its own PVM_TMP, STATE/hI/tmp (mode 0700): two pvmds never share one;
#   - its an2d, started by up: an2d -d --socket $PVM_TMP/an2d.sock --switch SWITCH
#     --auth key:STATE/link.key --log-file STATE/hI/an2d.log [--rate RATE], attached before up
#     goes on;
#   - the PVM environment below, which its pvmd hands to every task it spawns there.
# The master pvmd runs on h1 with the hostfile STATE/hostfile (`* ep=DIRS`, then h1..hN): it
# starts the pvmds of h2..hN through PVM_RSH=STATE/rsh, which runs pvmd's command (one
# argument) with `cluster.sh rsh`, i.e. inside that host's namespace and with that host's
# environment. up returns once `conf` on h1 lists all N hosts; everything keeps running after
# it (and after the shell that ran it) until `down`. up fails, and removes what it made, if a
# step fails; run it again after `down` (a state directory that exists means a cluster is up,
# or a crashed one is left: `down` removes either).
#
# A host's environment (exec, env, its pvmd, and so the tasks that pvmd spawns there):
#   PVM_ROOT=/usr/lib/pvm3  PVM_TMP=STATE/hI/tmp  PVM_VMID=an2c<id>  PVM_ALLOW_ROOT=1
#   PVM_RSH=STATE/rsh  AN2_SOCKET=$PVM_TMP/an2d.sock  AN2_SWITCH=SWITCH (shm:STATE/swK/link,
#   swK:7000 with --carrier tcp, ofi:swK:7001 with --carrier ofi)
#   AN2D_PATH=STATE/hI/an2d (a wrapper: build/bin/an2d with the cluster's --rate and log)
#   AN2_CLUSTER=STATE  AN2_CLUSTER_STATE=STATE  AN2_CLUSTER_HOST=hI  PATH=BUILD/bin:...
# Why an an2d started by up rather than one a task autostarts: a task's an2d comes with
# --idle-exit 60 and no --rate, appears only with the first task (status could not show the
# host's address before) and would take a new fabric address after each idle exit. The pvmd of
# every host has the same variables with its own values, so the tasks it spawns reach their own
# an2d (AN2_SOCKET) and pvmd (PVM_TMP) whichever host spawned them; these names must not be in
# PVM_EXPORT (a remote spawn would carry the spawner's values over): exec drops them from it.
# AN2_SWITCH and AN2D_PATH are a fallback: should a host's an2d die, the next task there
# autostarts one on the same switch and with the same rate.
# pvmds start with a clean environment (HOME, PATH, LANG and the above): a task spawned by a
# pvmd gets nothing from the shell that ran up; exec keeps the caller's environment (e.g.
# LD_LIBRARY_PATH=build/lib/dropin with PVM_EXPORT=LD_LIBRARY_PATH for Debian's binaries).
# up runs in a session of its own, so the switches, an2ds, pvmds and the tasks the pvmds spawn
# share one (Linux's autogroup scheduler makes each session a group; across groups the yields
# of tasks and an2d hand the CPU over poorly, driver/README.md) and no signal meant for the
# caller's terminal or process group reaches them. A command run with exec stays in its
# caller's session. With --in-session up keeps the caller's session (a process group of its
# own still keeps the terminal's signals away): for a script that runs the cluster and its
# commands from one session, as the benchmarks do, so that an exec'd master task shares the
# scheduling group of the an2ds, switches and pvmds, as every process shares one on one host
# under bench/compare. Where the master is in another group its host's an2d, polling while
# the master computes, takes up to half of the master's CPU (docs/waiting.md).
#
# --rate RATE (oc3, oc12 or linux-atm QoS text) goes to every an2switch and an2d; oc3 and oc12
# also shape what each host hI sends over its veth (TCP: stock PVM, pvmd traffic) with tc tbf to
# 149.76mbit / 599.04mbit (hosts_shape; switch hosts are not shaped: their veth carries many
# links at once). The host's AN2 link to its switch (TCP to port 7000) bypasses the tbf: an2d
# paces its cells to the rate itself, and the emulated fiber's own framing (records, TCP and IP
# headers) is no part of the line rate that the cells and stock's TCP share.
# --ep DIRS replaces the hostfile's ep (default BUILD/bin:BUILD/examples/an2:/usr/lib/pvm3/lib:
# /usr/bin; ours first, so a rebuilt example wins over Debian's binary).
# --ber BER makes every an2switch flip each payload bit of the cells it receives with that
# probability (an2switch --ber): the tasks' retransmission repairs it.
#
# Settings (environment): AN2_CLUSTER_STATE (default /run/an2-cluster; a test's cluster uses its
# own), AN2_BUILD_DIR (default: the source tree's build/), AN2_CLUSTER_WAIT (seconds up waits
# for all pvmds, default 30), AN2_CLUSTER_LIMIT (seconds, default 604800: a cluster forgotten for
# a week is torn down by the hosts' watchdog; `down` still removes the rest). Needs root,
# iproute2, util-linux, procps, Debian's pvm.
#
# State (STATE, root's, mode 0700, checked on every use): config (key=value), hostfile, rsh,
# link.key (the fabric's key: one per cluster, made by up, 32 random bytes, mode 0600),
# hI/ (tmp/ = PVM_TMP, an2d wrapper and log, pvmd.out), swK/ (pid, log, ctl = an2stat --switch),
# an2-cluster (the marker down looks for before it removes anything). The hosts are a
# persistent hosts.sh run (HOSTS_PERSIST=1) tagged with STATE, so that down finds them even
# when up died before it could note where they are.
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
SRC=$(cd "$(dirname "$SELF")/.." && pwd)
S=${AN2_CLUSTER_STATE:-/run/an2-cluster}
PVM_ROOT_DIR=/usr/lib/pvm3
PORT=7000
OFI_PORT=7001   # the switches' libfabric links (--carrier ofi)
# variables a task must get from its own host's pvmd, never from a spawner on another host
HOST_VARS=(PVM_TMP AN2_SOCKET AN2_SWITCH AN2D_PATH AN2_CLUSTER_HOST)
# what a spawned task's environment carries from stock pvmd; stale in a command we start
TASK_VARS=(PVMSOCK PVMEPID PVMTMASK PVMTRCBUF PVMTRCOPT PVMCTX PVMPARENT)

# shellcheck source=/dev/null # scripts/hosts.sh
source "$SRC/scripts/hosts.sh"

err() { echo "cluster.sh: $*" >&2; }
die() {
    err "$@"
    exit 1
}
usage() {
    sed -n '5,11p' "$SELF" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# --- the state directory --------------------------------------------------------------------

# check_state_path: STATE is an absolute, plain path whose parent only root can change.
check_state_path() {
    local parent mode
    [[ $S == /* && $S != / && $S != *//* && $S != */ && ! $S =~ (^|/)\.\.?(/|$) ]] ||
        die "AN2_CLUSTER_STATE=$S: an absolute path without . or .. parts"
    [[ ${#S} -le 60 ]] || die "AN2_CLUSTER_STATE=$S: at most 60 characters (Unix socket paths below it)"
    parent=${S%/*}
    parent=${parent:-/}
    [[ -d $parent && ! -L $parent ]] || die "$parent: no directory"
    [[ $(stat -c %u "$parent") == 0 ]] || die "$parent is not root's"
    mode=$(stat -c %a "$parent")
    # writable by others only if sticky (/tmp): nobody else can then rename our directory
    ((8#$mode & 8#022 && !(8#$mode & 8#1000))) && die "$parent is writable by others"
    return 0
}

# check_state: STATE exists and is ours (root's, 0700, a directory, not a link, the marker).
check_state() {
    [[ -d $S && ! -L $S ]] || return 1
    [[ $(stat -c '%u %a' "$S") == "0 700" ]] || die "$S: not root's with mode 0700: $(stat -c '%U %a' "$S")"
    [[ -e $S/an2-cluster ]] || die "$S: not a cluster's state directory (no an2-cluster marker)"
}

# load_config: STATE/config into CONF (true if it names the hosts).
declare -A CONF=()
load_config() {
    local k v
    CONF=()
    [[ -r $S/config ]] || return 1
    while IFS='=' read -r k v; do
        [[ $k =~ ^[a-z0-9_]+$ ]] && CONF[$k]=$v
    done <"$S/config"
    [[ -n ${CONF[hosts]:-} ]]
}

need_cluster() {
    [[ $(id -u) == 0 ]] || die "needs root"
    check_state_path
    check_state || die "no cluster in $S (scripts/cluster.sh up N)"
    load_config || die "$S: the cluster is not (or not completely) up; scripts/cluster.sh down removes it"
    if [[ -z ${CONF[hosts_state]:-} ]] || ! hosts_attach "${CONF[hosts_state]}"; then
        die "$S: its hosts are gone; scripts/cluster.sh down removes the rest"
    fi
    # these are for hosts.sh, not for the commands we run
    export -n HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV
}

is_compute_host() { [[ $1 =~ ^h[1-9][0-9]*$ ]] && ((${1#h} <= CONF[n])); }
is_switch_host() { [[ $1 =~ ^sw[1-9][0-9]*$ ]] && ((${1#sw} <= CONF[switches])); }
# switch_of hI: the switch host hI is attached to
switch_of() {
    local i=${1#h}
    echo "sw$(((i - 1) * CONF[switches] / CONF[n] + 1))"
}
# link_addr swK: where an an2d or another switch reaches switch swK's links with the cluster's
# carrier (a config without one is a cluster of before carriers: TCP)
link_addr() {
    case ${CONF[carrier]:-tcp} in
        shm) echo "shm:$S/$1/link" ;;
        ofi) echo "ofi:$1:$OFI_PORT" ;;
        *) echo "$1:$PORT" ;;
    esac
}

# host_env HOST: HOST's environment, NAME=VALUE a line
host_env() {
    local h=$1 tmp
    printf '%s\n' "AN2_CLUSTER=$S" "AN2_CLUSTER_STATE=$S" "AN2_CLUSTER_HOST=$h" \
        "PATH=${CONF[build]}/bin:$(std_path)"
    is_compute_host "$h" || return 0
    tmp=$S/$h/tmp
    printf '%s\n' "PVM_ROOT=$PVM_ROOT_DIR" "PVM_TMP=$tmp" "PVM_VMID=${CONF[vmid]}" \
        "PVM_ALLOW_ROOT=1" "PVM_RSH=$S/rsh" "AN2_SOCKET=$tmp/an2d.sock" \
        "AN2_SWITCH=$(link_addr "$(switch_of "$h")")" "AN2D_PATH=$S/$h/an2d"
}

# std_path: the caller's PATH without our build's bin (it goes first), or a default one
std_path() {
    local p=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin} out='' d
    local IFS=:
    for d in $p; do
        [[ $d == "${CONF[build]}/bin" || -z $d ]] || out+=${out:+:}$d
    done
    printf '%s' "$out"
}

# run_in HOST CLEAN CMD...: exec CMD in HOST's namespace (own UTS namespace named HOST, as
# hosts_exec) with HOST's environment; CLEAN=1: nothing else of ours (a pvmd's environment)
run_in() {
    local h=$1 clean=$2 ns v name keep='' e
    shift 2
    ns=$(hosts_ns "$h") || exit 2
    local -a envs=() unset=()
    mapfile -t envs < <(host_env "$h")
    if [[ $clean == 1 ]]; then
        envs=(-i "HOME=${HOME:-/root}" "LANG=${LANG:-C.UTF-8}" "${envs[@]}")
    else
        for v in "${TASK_VARS[@]}" HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 \
            HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV; do
            unset+=(-u "$v")
        done
        if [[ -n ${PVM_EXPORT:-} ]]; then # never carry one host's values to another
            local IFS=:
            for name in $PVM_EXPORT; do
                for e in "${HOST_VARS[@]}"; do [[ $name == "$e" ]] && continue 2; done
                keep+=${keep:+:}$name
            done
            unset IFS
            envs+=("PVM_EXPORT=$keep")
        fi
    fi
    # shellcheck disable=SC2016 # $0 and $@ are the inner shell's
    exec ip netns exec "$ns" unshare --uts -- /bin/sh -c 'hostname "$0" && exec "$@"' "$h" \
        env "${unset[@]}" "${envs[@]}" "$@"
}

# in_host HOST CMD...: run_in in a child (returns CMD's status)
in_host() { (run_in "$1" 0 "${@:2}"); }

# --- up ---------------------------------------------------------------------------------------

write_file() { # MODE PATH TEXT
    (umask 077 && printf '%s' "$3" >"$2.tmp") && chmod "$1" "$2.tmp" && mv "$2.tmp" "$2"
}


pvmd_pids() { # HOST: the pvmd processes in HOST's namespace
    local p
    for p in $(ip netns pids "$(hosts_ns "$1")" 2>/dev/null); do
        [[ $(readlink "/proc/$p/exe" 2>/dev/null) == */pvmd ]] && echo "$p"
    done
    return 0
}

# console HOST CMDS [SECONDS]: feed CMDS to Debian's console on HOST (it quits at the end of
# its input); its output on stdout
console() {
    local h=$1 cmds=$2 secs=${3:-10}
    printf '%s\n' "$cmds" | in_host "$h" env -u LD_LIBRARY_PATH -u LD_PRELOAD timeout "$secs" pvm 2>&1
}

conf_hosts() { # the number of hosts the master's conf lists
    console h1 conf 10 | awk 'match($0, /[0-9]+ hosts?, [0-9]+ data formats?/) {print substr($0, RSTART) + 0; exit}'
}

# (only while the master pvmd runs: the console would start a pvmd of its own)
all_hosts_in() { [[ -n $(pvmd_pids h1) && $(conf_hosts) == "${CONF[n]}" ]]; }
an2switch_up() { [[ -S $S/$1/ctl ]]; }

cmd_up() {
    local n='' k=1 rate='' ep='' ber='' carrier=shm in_session=0 a
    while (($#)); do
        case $1 in
            --in-session) in_session=1; shift ;;
            --ber) ber=${2:?--ber BER}; shift 2 ;;
            --ber=*) ber=${1#*=}; shift ;;
            --rate) rate=${2:?--rate RATE}; shift 2 ;;
            --rate=*) rate=${1#*=}; shift ;;
            --switches) k=${2:?--switches K}; shift 2 ;;
            --switches=*) k=${1#*=}; shift ;;
            --ep) ep=${2:?--ep DIRS}; shift 2 ;;
            --carrier) carrier=${2:?--carrier shm|tcp|ofi}; shift 2 ;;
            --carrier=*) carrier=${1#*=}; shift ;;
            --ep=*) ep=${1#*=}; shift ;;
            -*) usage ;;
            *) [[ -z $n ]] || usage; n=$1; shift ;;
        esac
    done
    [[ $n =~ ^[1-9][0-9]?$ && $n -le 32 ]] || die "up N: N is 1 to 32 hosts"
    [[ $k =~ ^[1-8]$ && $k -le $n ]] || die "--switches K: 1 to 8, and at most N"
    [[ $rate =~ ^[A-Za-z0-9:=,._+-]*$ ]] || die "--rate $rate: oc3, oc12 or linux-atm QoS text"
    [[ $ep =~ ^[^[:space:]]*$ ]] || die "--ep: no blanks"
    [[ $carrier == shm || $carrier == tcp || $carrier == ofi ]] ||
        die "--carrier $carrier: shm, tcp or ofi"
    # a Unix socket's path holds at most 107 bytes
    [[ $carrier != shm || ${#S} -le 90 ]] ||
        die "--carrier shm: the state directory's path is too long for a Unix socket in it (${#S} bytes, at most 90): a shorter AN2_CLUSTER_STATE, or --carrier tcp"
    [[ -z $ber || $ber =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] || die "--ber $ber: a probability, e.g. 1e-7"
    [[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
    check_state_path
    local build=${AN2_BUILD_DIR:-$SRC/build}
    build=$(cd "$build" 2>/dev/null && pwd) || die "no build directory ${AN2_BUILD_DIR:-$SRC/build} (cmake --build build)"
    for a in an2d an2switch an2stat; do
        [[ -x $build/bin/$a ]] || die "$build/bin/$a missing (cmake --build $build)"
    done
    if [[ ! -x $PVM_ROOT_DIR/lib/pvmd ]] || ! command -v pvm >/dev/null; then
        die "needs Debian's pvm (apt-get install pvm)"
    fi
    if [[ ${_AN2_CLUSTER_INNER:-} != "$S" ]]; then
        # the work happens in a session of its own, or with --in-session in a process group of
        # its own in ours (see the notes at the top); a signal to us is passed on, and the
        # inner run removes what it made
        local pid rc=0 i detach=(setsid)
        # --in-session: job control gives the inner run a process group of its own, in our session
        ((in_session)) && { detach=(); set -m; }
        _AN2_CLUSTER_INNER=$S "${detach[@]}" bash "$SELF" up "$n" --switches "$k" \
            --carrier "$carrier" ${rate:+--rate "$rate"} ${ep:+--ep "$ep"} ${ber:+--ber "$ber"} &
        pid=$!
        set +m
        trap 'kill -TERM "$pid" 2>/dev/null' INT TERM HUP
        for ((i = 0; i < 50; i++)); do # each wait ends with the run or with a signal
            rc=0
            wait "$pid" || rc=$?
            kill -0 "$pid" 2>/dev/null || break
        done
        exit "$rc"
    fi
    unset _AN2_CLUSTER_INNER
    up_inner "$n" "$k" "$rate" "$ep" "$build" "$ber" "$carrier"
}

UP_STARTED=0
up_failed() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if ((UP_STARTED)); then
        err "up failed: removing what it made"
        (cmd_down) || :
    fi
    exit $((rc ? rc : 1))
}

up_inner() {
    local n=$1 k=$2 rate=$3 ep=$4 build=$5 ber=$6 carrier=$7 i h sw tmp vmid shape='' hostfile a
    local -a names=() args
    # a cluster that is up, or the remains of one: refuse (mkdir is the claim)
    mkdir -m 0700 "$S" 2>/dev/null || die "$S exists: a cluster is up (or a crashed one is left): scripts/cluster.sh down first"
    UP_STARTED=1
    trap up_failed EXIT
    trap 'exit 143' TERM
    trap 'exit 130' INT
    trap 'exit 129' HUP
    chmod 0700 "$S"
    : >"$S/an2-cluster"
    for ((i = 1; i <= n; i++)); do names+=("h$i"); done
    for ((i = 1; i <= k; i++)); do names+=("sw$i"); done
    vmid=an2c$$
    [[ -z $ep ]] && ep=$build/bin:$build/examples/an2:$PVM_ROOT_DIR/lib:/usr/bin
    CONF=([n]=$n [switches]=$k [rate]=$rate [build]=$build [vmid]=$vmid [ep]=$ep [carrier]=$carrier)
    case $rate in
        oc3) shape=149.76mbit ;;
        oc12) shape=599.04mbit ;;
    esac

    # the hosts, kept after we end, found again by their tag
    HOSTS_PERSIST=1 HOSTS_TAG="an2-cluster:$S" HOSTS_LIMIT=${AN2_CLUSTER_LIMIT:-604800} \
        hosts_up "${names[@]}" || die "hosts_up failed"
    CONF[hosts_state]=$HOSTS_STATE
    export -n HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV
    if [[ -n $shape ]]; then
        for ((i = 1; i <= n; i++)); do hosts_shape "h$i" "$shape" "$PORT" || die "shaping h$i"; done
    fi

    # the cluster's link key: every an2switch and an2d proves itself with it (an2_link_auth.h);
    # made here, readable by root alone, removed with the cluster by down
    (umask 077 && head -c 32 /dev/urandom >"$S/link.key") || die "cannot make the link key"

    # per-host directories, the PVM_RSH script, the pvmd's hostfile, an2d wrappers
    write_file 0700 "$S/rsh" "#!/bin/sh
# PVM_RSH of the cluster in $S (scripts/cluster.sh): pvmd runs \$PVM_RSH HOST [-l USER] CMD
exec env AN2_CLUSTER_STATE=$(printf %q "$S") bash $(printf %q "$SELF") rsh \"\$@\"
"
    hostfile="# pvmd hostfile of the cluster in $S (scripts/cluster.sh)"$'\n'"* ep=$ep"$'\n'
    for ((i = 1; i <= n; i++)); do
        h=h$i tmp=$S/h$i/tmp
        mkdir -m 0700 "$S/$h" "$tmp"
        args=(--log-file "$S/$h/an2d.log" --auth "key:$S/link.key")
        [[ -n $rate ]] && args+=(--rate "$rate")
        write_file 0700 "$S/$h/an2d" "#!/bin/sh
# an2d of host $h of the cluster in $S (scripts/cluster.sh): also what a task there autostarts
exec $(printf %q "$build/bin/an2d") $(printf '%q ' "${args[@]}")\"\$@\"
"
        hostfile+=$h$'\n'
    done
    write_file 0600 "$S/hostfile" "$hostfile"
    for ((i = 1; i <= k; i++)); do mkdir -m 0700 "$S/sw$i"; done
    {
        for a in n switches rate build vmid ep carrier hosts_state; do printf '%s=%s\n' "$a" "${CONF[$a]}"; done
        printf 'hosts=%s\n' "${names[*]}"
        printf 'created=%s\n' "$(date -u +%FT%TZ)"
    } >"$S/config.tmp"
    mv "$S/config.tmp" "$S/config"
    CONF[hosts]=${names[*]}

    # the switches; each switch trunks to those with lower ids
    for ((i = 1; i <= k; i++)); do
        sw=sw$i
        args=(--listen ":$PORT" --id "$i" --control "$S/$sw/ctl" --pid-file "$S/$sw/pid"
            --log-file "$S/$sw/log" --auth "key:$S/link.key")
        [[ $carrier == shm ]] && args+=(--listen "shm:$S/$sw/link")
        [[ $carrier == ofi ]] && args+=(--listen "ofi::$OFI_PORT")
        for ((a = 1; a < i; a++)); do args+=(--trunk "$(link_addr "sw$a")"); done
        [[ -n $rate ]] && args+=(--rate "$rate")
        [[ -n $ber ]] && args+=(--ber "$ber")
        (run_in "$sw" 1 "$build/bin/an2switch" "${args[@]}") </dev/null >"$S/$sw/out" 2>&1 &
        disown
    done
    for ((i = 1; i <= k; i++)); do
        hosts_wait_for 100 an2switch_up "sw$i" ||
            die "an2switch on sw$i did not start: $(tail -n 5 "$S/sw$i/out" "$S/sw$i/log" 2>/dev/null)"
    done

    # an an2d per host, attached to its switch (an2d -d returns once the switch said HELLO)
    for ((i = 1; i <= n; i++)); do
        h=h$i
        (run_in "$h" 1 "$S/$h/an2d" -d --socket "$S/$h/tmp/an2d.sock" --switch "$(link_addr "$(switch_of "$h")")") \
            </dev/null >"$S/$h/an2d.out" 2>&1 ||
            die "an2d on $h did not start: $(tail -n 5 "$S/$h/an2d.out" "$S/$h/an2d.log" 2>/dev/null)"
    done

    # the master pvmd on h1; it starts the others through PVM_RSH
    (run_in h1 1 "$PVM_ROOT_DIR/lib/pvmd" "$S/hostfile") </dev/null >"$S/h1/pvmd.out" 2>&1 &
    disown
    local waitn=$((${AN2_CLUSTER_WAIT:-30} * 10))
    hosts_wait_for 100 test -s "$S/h1/tmp/pvmd.0.$vmid" ||
        die "the master pvmd did not start: $(tail -n 5 "$S/h1/pvmd.out")"
    hosts_wait_for "$waitn" all_hosts_in ||
        die "not all pvmds joined within ${AN2_CLUSTER_WAIT:-30} s: $(console h1 conf 10 | tail -n 12)"
    trap - EXIT INT TERM HUP
    cmd_status
}

# --- exec, env, rsh ---------------------------------------------------------------------------

cmd_exec() {
    local h=${1:-}
    [[ -n $h ]] || usage
    shift
    [[ ${1:-} == -- ]] && shift
    (($#)) || usage
    need_cluster
    is_compute_host "$h" || is_switch_host "$h" || die "no host '$h' (hosts: ${CONF[hosts]})"
    run_in "$h" 0 "$@"
}

cmd_env() {
    local h=${1:-} line
    [[ -n $h ]] || usage
    need_cluster
    is_compute_host "$h" || is_switch_host "$h" || die "no host '$h' (hosts: ${CONF[hosts]})"
    while IFS= read -r line; do
        printf 'export %s=%q\n' "${line%%=*}" "${line#*=}"
    done < <(host_env "$h")
}

# rsh HOST [-l USER] CMD: what pvmd runs to start a pvmd on another host (CMD is one argument)
cmd_rsh() {
    local h=${1:-} cmd
    case $# in
        2) cmd=$2 ;;
        4) [[ $2 == -l ]] || die "rsh: HOST [-l USER] CMD"; cmd=$4 ;;
        *) die "rsh: HOST [-l USER] CMD (got $# arguments)" ;;
    esac
    need_cluster
    is_compute_host "$h" || die "rsh: no host '$h' (hosts: ${CONF[hosts]})"
    # the command with the host's own environment on top of the master pvmd's (clean) one
    run_in "$h" 0 /bin/sh -c "$cmd"
}

# --- status -----------------------------------------------------------------------------------

cmd_status() {
    local h line pids p addr up state
    [[ -n ${CONF[hosts]:-} ]] || need_cluster
    printf 'cluster %s: %s hosts, %s switch(es), links over %s, rate %s, PVM_VMID %s, hosts %s (%s)\n' \
        "$S" "${CONF[n]}" "${CONF[switches]}" "${CONF[carrier]:-tcp}" "${CONF[rate]:-unpaced}" \
        "${CONF[vmid]}" "${HOSTS_NET4:-?}" "${HOSTS_PREFIX:-?}"
    printf '%-5s %-13s %-6s %-22s %s\n' host address switch pvmd an2d
    for h in ${CONF[hosts]}; do
        if is_switch_host "$h"; then
            p=$(cat "$S/$h/pid" 2>/dev/null || :)
            state=down
            [[ -n $p ]] && kill -0 "$p" 2>/dev/null && state="up (pid $p), id ${h#sw}"
            printf '%-5s %-13s %-6s %-22s %s\n' "$h" "$(hosts_ip "$h")" - "-" "an2switch $state"
            continue
        fi
        pids=$(pvmd_pids "$h" | tr '\n' ' ')
        up=down
        [[ -n $pids ]] && up="up (pid ${pids% })"
        [[ $h == h1 && -n $pids ]] && up+=" master"
        state=down
        p=$(cat "$S/$h/tmp/an2d.pid" 2>/dev/null || :)
        if [[ -n $p ]] && kill -0 "$p" 2>/dev/null; then
            line=$(AN2_SOCKET=$S/$h/tmp/an2d.sock AN2_NO_AUTOSTART=1 timeout 5 \
                "${CONF[build]}/bin/an2stat" 2>/dev/null | grep -m1 '^host ' || :)
            addr=$(awk '{print $2}' <<<"$line")
            state="up (pid $p), address ${addr:-?}"
            [[ $line == *"uplink to the switch up"* ]] && state+=", uplink up" || state+=", uplink down"
        fi
        printf '%-5s %-13s %-6s %-22s %s\n' "$h" "$(hosts_ip "$h")" "$(switch_of "$h")" "$up" "$state"
    done
    if [[ -n $(pvmd_pids h1) ]]; then
        echo "pvm conf on h1:"
        console h1 conf 10 | grep -Ev '^(pvm>.*|pvmd (already|still) running\.|Console: exit handler called|\s*)$' |
            sed 's/^/  /' || :
    fi
}

# --- down -------------------------------------------------------------------------------------

# ancestors: our pid and our ancestors' (never killed)
ancestors() {
    local p=$BASHPID i
    for ((i = 0; i < 100 && p > 1; i++)); do
        echo "$p"
        p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || break
    done
    echo "$$"
}

# cluster_pids: processes with AN2_CLUSTER=STATE in their environment (ours or their children)
cluster_pids() {
    local p self
    self=" $(ancestors | tr '\n' ' ') "
    # shellcheck disable=SC2013 # /proc/PID/environ: no blanks
    for p in $(grep -lzxF "AN2_CLUSTER=$S" /proc/[0-9]*/environ 2>/dev/null); do
        p=${p#/proc/}
        p=${p%/environ}
        [[ $self == *" $p "* ]] || echo "$p"
    done
    return 0
}

cmd_down() {
    local h d i p left pids
    [[ $(id -u) == 0 ]] || die "needs root"
    check_state_path
    # (an up killed between its mkdir and its marker left an empty directory)
    [[ -d $S && ! -L $S && ! -e $S/an2-cluster && -z $(ls -A "$S") ]] && rmdir "$S"
    if check_state; then
        if load_config && [[ -n ${CONF[hosts_state]:-} ]] && hosts_attach "${CONF[hosts_state]}" 2>/dev/null; then
            export -n HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV
            # politely first: the pvmds (halt kills their tasks), the an2ds, the switches
            if [[ -n $(pvmd_pids h1) ]]; then
                console h1 halt 10 >/dev/null || :
                for ((i = 0; i < 50; i++)); do
                    left=''
                    for ((p = 1; p <= CONF[n]; p++)); do left+=$(pvmd_pids "h$p"); done
                    [[ -z $left ]] && break
                    sleep 0.1
                done
            fi
            # (all at once: a switch takes a second or two to go)
            pids=''
            for ((p = 1; p <= CONF[n]; p++)); do
                [[ -S $S/h$p/tmp/an2d.sock ]] || continue
                timeout 10 "${CONF[build]}/bin/an2d" --socket "$S/h$p/tmp/an2d.sock" --stop >/dev/null 2>&1 &
                pids+=" $!"
            done
            for ((p = 1; p <= CONF[switches]; p++)); do
                [[ -s $S/sw$p/pid ]] || continue
                timeout 10 "${CONF[build]}/bin/an2switch" --stop --pid-file "$S/sw$p/pid" >/dev/null 2>&1 &
                pids+=" $!"
            done
            for p in $pids; do wait "$p" || :; done
            hosts_down || :
        fi
    elif [[ -e $S ]]; then
        die "$S is not a directory of ours"
    fi
    # whatever is left: hosts of ours by their tag (also a run whose up died in hosts_up), the
    # processes that carry our mark, the state
    unset HOSTS_STATE
    hosts_reap 2>/dev/null || :
    for d in $(hosts_tagged "an2-cluster:$S"); do
        (hosts_attach "$d" 2>/dev/null && hosts_down) && continue
        # a run that never finished hosts_up: its watchdog removes it once its maker is gone
        hosts_wait_for 50 test ! -e "$d" || err "hosts of $d not removed (its hosts_up still runs?)"
    done
    for ((i = 0; i < 3; i++)); do
        pids=$(cluster_pids)
        [[ -z $pids ]] && break
        # shellcheck disable=SC2086 # a list of pids
        kill -TERM $pids 2>/dev/null || :
        hosts_wait_for 20 test -z "$(cluster_pids)" && break
        pids=$(cluster_pids)
        # shellcheck disable=SC2086
        [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || :
    done
    [[ -z $(cluster_pids) ]] || err "processes left: $(cluster_pids | tr '\n' ' ')"
    [[ -d $S ]] && rm -rf "$S"
    [[ -z $(hosts_tagged "an2-cluster:$S") && ! -e $S ]]
}

# --- main -------------------------------------------------------------------------------------

case ${1:-} in
    up) shift; cmd_up "$@" ;;
    exec) shift; cmd_exec "$@" ;;
    env) shift; cmd_env "$@" ;;
    status) need_cluster; cmd_status ;;
    down) cmd_down ;;
    rsh) shift; cmd_rsh "$@" ;;
    -h | --help | help) sed -n '2,10p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
esac
