# hosts.sh — sourced by tests and benchmarks: several emulated hosts on this one machine, each a
# Linux network namespace joined to the others through a bridge namespace, torn down on any exit
# (or, with HOSTS_PERSIST=1, kept until a later hosts_down: see the end of these notes).
# shellcheck shell=bash
#
#   source scripts/hosts.sh
#   hosts_up alpha beta gamma          # namespaces, veths, IPv4 + IPv6 ULA, /etc/hosts per host
#   hosts_exec alpha some-command ...  # runs inside alpha's namespace (hostname "alpha" too)
#   hosts_down                         # optional: it also runs on EXIT, INT, TERM, HUP
#
# Needs root, iproute2 (ip, tc), util-linux (setsid, unshare), procps (sysctl, pgrep).
#
# API (NAME is a host name given to hosts_up):
#   hosts_up NAME...        create the hosts; fails (and leaves nothing) if any step fails
#   hosts_down              remove everything hosts_up made; idempotent; restores the traps
#   hosts_ns NAME           print NAME's namespace (for ip netns exec / ip -n)
#   hosts_ip NAME           print NAME's IPv4 address (in the run's private /24)
#   hosts_ip6 NAME          print NAME's IPv6 ULA address (fd82:a2:0:<octet>::<n>, /64)
#   hosts_names             print the host names, one a line
#   hosts_exec NAME CMD...  run CMD (a program, not a shell function) inside NAME's namespace
#   hosts_link_down NAME    cut NAME's link (its port on the bridge goes down; NAME sees no carrier)
#   hosts_link_up NAME      restore it
#   hosts_shape NAME RATE [PORT]
#                           tbf rate RATE burst 32kb latency 10ms on what NAME sends; with PORT,
#                           TCP to that port (IPv4 and IPv6) bypasses the tbf: a link that paces
#                           itself (an AN2 link to its switch) is not charged for its own carrier
#   hosts_unshape NAME      remove that shaping
#   hosts_on_exit CMD       run CMD (eval'd) before the hosts are torn down, last added first
#   hosts_wait_for TENTHS CMD...  CMD (a program or function) succeeds within TENTHS tenths
#                           of a second (tried every 0.1 s); status 1 if it never does
#
# After hosts_up these are set and exported (a child script can source this file and use the
# functions above on them; only the shell that ran hosts_up may call hosts_down, except for
# a persistent run):
#   HOSTS_NAMES  "alpha beta gamma"     HOSTS_PREFIX  an2h<pid>-  (namespace = prefix + NAME)
#   HOSTS_TABLE  one line per host: NAME NAMESPACE IPV4 IPV6 BRIDGE_PORT
#   HOSTS_NET4   10.82.<octet>.0/24     HOSTS_NET6    fd82:a2:0:<octet>::/64
#   HOSTS_BRIDGE_NS  the bridge's namespace    HOSTS_DEV  eth0 (each host's interface)
#   HOSTS_STATE  the run's state directory (/run/an2-hosts/net-<octet>)
#
# Settings (environment, read by hosts_up):
#   HOSTS_LIMIT=3600   seconds (604800 with HOSTS_PERSIST=1); then a watchdog tears everything
#                      down and kills the script
#   HOSTS_KILL_WAIT=2  seconds between TERM and KILL for processes left in the namespaces
#   HOSTS_UTS=1        hosts_exec also gives the command its own UTS namespace whose hostname
#                      is NAME (so a program that resolves its own hostname finds NAME's address);
#                      0: the machine's hostname, which the per-host /etc/hosts does not list
#   HOSTS_STATE_ROOT=/run/an2-hosts
#
# Names: each host's /etc/hosts (/etc/netns/<ns>/hosts, which ip netns exec puts over /etc/hosts)
# gives every NAME its IPv4 and its IPv6 address: gethostbyname and AF_INET lookups find the
# first, AF_INET6 lookups the second; getaddrinfo with AF_UNSPEC lists both, IPv6 first (glibc's
# default RFC 3484 policy), so ask for a family when it matters. Names are a letter, then
# letters, digits and '-' (never numeric).
#
# Isolation: the hosts' only interface is their veth into the bridge namespace, which has no
# other link; there is no default route, so traffic goes only between the run's addresses.
# Each host's /etc/netns/<ns>/resolv.conf names no nameserver, so an unknown name fails at once
# (glibc then asks 127.0.0.1 inside the namespace, where nothing listens).
# Two runs at once: namespace names carry the PID of the shell that ran hosts_up, and the /24 is
# claimed with an atomic mkdir of /run/an2-hosts/net-<octet> (octet from PID and $RANDOM, next
# free one on collision).
#
# Clean-up, and how it combines with the caller's traps:
#   hosts_up saves the caller's current EXIT, INT, TERM and HUP traps and installs its own. On
#   EXIT (including an exit through `set -e`) it runs the hosts_on_exit hooks, tears the hosts
#   down, then runs the caller's saved EXIT trap with $? as it was. On INT/TERM/HUP it tears down
#   and then runs the caller's saved trap for that signal, or, if there was none, dies of that
#   signal (the caller's saved EXIT trap then runs as bash would have run it). A signal the
#   caller ignored stays ignored. hosts_down puts the caller's saved traps back.
#   So: set your traps before hosts_up, or add clean-up with hosts_on_exit afterwards (hooks run
#   while the hosts still exist: the place to stop daemons politely). A `trap ... EXIT` set
#   after hosts_up replaces ours; even then a watchdog (a separate session, so a kill of the
#   caller's process group does not reach it) removes the hosts within ~0.3 s of the calling
#   shell's death — also after SIGKILL — and at HOSTS_LIMIT it sends the script (and its
#   children) TERM, tears down, and KILLs whatever still runs. hosts_down stops the watchdog.
#   The caller's saved trap runs with errexit off (inside our handler).
#   Call hosts_up in the main shell, not in $(...) or a pipeline: that subshell's end would be
#   the run's end. In a ( ... ) subshell it works, but chains no trap set before it (bash shows
#   a subshell its parent's traps, which do not run there, so it cannot tell): use
#   hosts_on_exit there. Bash runs a trap only after the foreground command ends: start long
#   commands with `cmd & wait $!` so that a signal is handled at once.
#
# `bash scripts/hosts.sh --reap` removes what runs whose shell and watchdog both died left
# (hosts_up does this too before it claims an octet).
#
# Hosts that outlive the shell that made them (HOSTS_PERSIST=1, read by hosts_up): no traps, and
# once hosts_up has finished the watchdog no longer watches the shell, only HOSTS_LIMIT (default
# 604800 s, a week, for such a run, counted from the end of hosts_up), at which it tears the
# hosts down; hosts_reap leaves the run alone (so does an older copy of this file: the watchdog
# still runs). A run whose shell dies
# during hosts_up goes as any other. HOSTS_TAG=TEXT (one line) is saved with the run so that its
# maker finds it again even if it died before it could note HOSTS_STATE. Any later shell (root)
# then uses it:
#   hosts_attach DIR        load the run in state directory DIR: HOSTS_* as after hosts_up, so
#                           hosts_exec, hosts_shape, ... work; hosts_down removes the run
#   hosts_tagged TAG        print the state directories of persistent runs saved with TAG
#   hosts_down              in the shell that made them, or after hosts_attach: remove them
#   bash scripts/hosts.sh --down DIR     the same from the command line

_HOSTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
_HOSTS_SIGS=(EXIT INT TERM HUP)
_HOSTS_HOOKS=()
HOSTS_DEV=eth0

_hosts_err() { echo "hosts.sh: $*" >&2; }

# _hosts_do CMD...: run CMD; on failure say which command failed and return 1.
_hosts_do() {
    "$@" && return 0
    _hosts_err "failed: $*"
    return 1
}

# _hosts_sleep SECONDS: sleep; the watchdog, which polls for hours, does it without starting a
# process (read times out on a pipe that it holds open; other shells keep no such descriptor,
# which every child would inherit).
_hosts_sleep() {
    if [[ -n ${_HOSTS_SLEEP_FD:-} ]]; then
        read -r -t "$1" -u "$_HOSTS_SLEEP_FD" _ || :
    else
        sleep "$1"
    fi
}

# _hosts_alive PID: PID runs (a zombie does not count: here PID 1 may reap orphans late).
_hosts_alive() {
    local stat
    [[ -n $1 ]] && kill -0 "$1" 2>/dev/null || return 1
    read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

# --- lookups -------------------------------------------------------------------------------

# _hosts_field NAME FIELD: FIELD (ns, ip, ip6, port) of host NAME from HOSTS_TABLE.
_hosts_field() {
    local n ns ip ip6 port
    if [[ -n ${HOSTS_TABLE:-} ]]; then
        while read -r n ns ip ip6 port; do
            [[ $n == "$1" ]] || continue
            case $2 in
                ns) printf '%s\n' "$ns" ;;
                ip) printf '%s\n' "$ip" ;;
                ip6) printf '%s\n' "$ip6" ;;
                port) printf '%s\n' "$port" ;;
            esac
            return 0
        done <<<"$HOSTS_TABLE"
    fi
    _hosts_err "no host '$1' (hosts: ${HOSTS_NAMES:-none are up})"
    return 1
}

hosts_ns() { _hosts_field "${1:?hosts_ns NAME}" ns; }
hosts_ip() { _hosts_field "${1:?hosts_ip NAME}" ip; }
hosts_ip6() { _hosts_field "${1:?hosts_ip6 NAME}" ip6; }
hosts_names() {
    local -a names
    read -ra names <<<"${HOSTS_NAMES:-}"
    ((${#names[@]} == 0)) || printf '%s\n' "${names[@]}"
}

# --- running things in a host --------------------------------------------------------------

hosts_exec() {
    local name=${1:?hosts_exec NAME CMD...} ns
    shift
    [[ $# -gt 0 ]] || { _hosts_err "hosts_exec $name: no command"; return 2; }
    ns=$(hosts_ns "$name") || return 2
    if [[ ${HOSTS_UTS:-1} == 1 ]]; then
        # shellcheck disable=SC2016 # $0 and $@ are the inner shell's
        ip netns exec "$ns" unshare --uts -- /bin/sh -c 'hostname "$0" && exec "$@"' "$name" "$@"
    else
        ip netns exec "$ns" "$@"
    fi
}

hosts_link_down() {
    local port
    port=$(_hosts_field "${1:?hosts_link_down NAME}" port) || return 1
    _hosts_do ip -n "$HOSTS_BRIDGE_NS" link set "$port" down
}

hosts_link_up() {
    local port
    port=$(_hosts_field "${1:?hosts_link_up NAME}" port) || return 1
    _hosts_do ip -n "$HOSTS_BRIDGE_NS" link set "$port" up
}

hosts_shape() {
    local ns port=${3:-} tc tbf
    ns=$(hosts_ns "${1:?hosts_shape NAME RATE [PORT]}") || return 1
    tc=(_hosts_do ip netns exec "$ns" tc)
    tbf=(tbf rate "${2:?hosts_shape NAME RATE [PORT]}" burst 32kb latency 10ms)
    if [[ -z $port ]]; then
        "${tc[@]}" qdisc replace dev "$HOSTS_DEV" root "${tbf[@]}"
        return
    fi
    [[ $port =~ ^[0-9]+$ && $port -ge 1 && $port -le 65535 ]] ||
        { echo "hosts.sh: hosts_shape: port '$port' is not 1..65535" >&2; return 1; }
    # htb as a classifier only (both classes far above any veth's rate): class 1:1 takes TCP to
    # PORT as it comes, the default class 1:2 goes through the tbf
    "${tc[@]}" qdisc replace dev "$HOSTS_DEV" root handle 1: htb default 2 r2q 100000 &&
        "${tc[@]}" class add dev "$HOSTS_DEV" parent 1: classid 1:1 htb rate 10gbit burst 1mb &&
        "${tc[@]}" class add dev "$HOSTS_DEV" parent 1: classid 1:2 htb rate 10gbit burst 1mb &&
        "${tc[@]}" qdisc add dev "$HOSTS_DEV" parent 1:2 handle 20: "${tbf[@]}" &&
        "${tc[@]}" filter add dev "$HOSTS_DEV" parent 1: protocol ip prio 1 u32 \
            match ip protocol 6 0xff match ip dport "$port" 0xffff flowid 1:1 &&
        "${tc[@]}" filter add dev "$HOSTS_DEV" parent 1: protocol ipv6 prio 2 u32 \
            match ip6 protocol 6 0xff match ip6 dport "$port" 0xffff flowid 1:1
}

hosts_unshape() {
    local ns
    ns=$(hosts_ns "${1:?hosts_unshape NAME}") || return 1
    # no qdisc of ours there is fine
    ip netns exec "$ns" tc qdisc del dev "$HOSTS_DEV" root 2>/dev/null || :
}

hosts_on_exit() {
    [[ $# -gt 0 ]] || { _hosts_err "hosts_on_exit CMD"; return 2; }
    _HOSTS_HOOKS+=("$*")
}

hosts_wait_for() {
    local n=${1:?hosts_wait_for TENTHS CMD...} i
    shift
    for ((i = 0; i < n; i++)); do
        "$@" && return 0
        _hosts_sleep 0.1
    done
    return 1
}

# --- traps ---------------------------------------------------------------------------------

# shellcheck disable=SC2120 # set -- parses trap -p's output
_hosts_install_traps() {
    [[ ${_HOSTS_TRAP_PID:-} == "$BASHPID" ]] && return 0
    local sig spec cmd
    for sig in "${_HOSTS_SIGS[@]}"; do
        spec=$(trap -p "$sig")
        # in a subshell bash shows the parent's traps, which do not run there: chain none
        [[ $BASHPID == "$$" ]] || spec=''
        cmd=''
        if [[ -n $spec ]]; then
            eval "set -- $spec"
            cmd=$3
            [[ $cmd == _hosts_trap* ]] && cmd='' spec=''
        fi
        printf -v "_HOSTS_PREV_$sig" '%s' "$cmd"
        printf -v "_HOSTS_HAD_$sig" '%s' "$([[ -n $spec ]] && echo 1 || echo 0)"
        if [[ $sig != EXIT && -n $spec && -z $cmd ]]; then
            continue # the caller ignores this signal: so do we
        fi
        # shellcheck disable=SC2064 # $sig is meant to expand now
        trap "_hosts_trap $sig" "$sig"
    done
    _HOSTS_TRAP_PID=$BASHPID
}

_hosts_restore_traps() {
    [[ ${_HOSTS_TRAP_PID:-} == "$BASHPID" ]] || return 0
    local sig had prev
    for sig in "${_HOSTS_SIGS[@]}"; do
        had=_HOSTS_HAD_$sig prev=_HOSTS_PREV_$sig
        if [[ ${!had:-0} == 1 ]]; then
            trap -- "${!prev-}" "$sig"
        else
            trap - "$sig"
        fi
    done
    _HOSTS_TRAP_PID=
}

# _hosts_rc N: return N (to hand $? on to the caller's trap).
_hosts_rc() { return "$1"; }

# The caller's saved trap is eval'd in here: our locals carry a _hosts_ prefix so that they
# do not hide the caller's variables; it runs with errexit off.
_hosts_trap() {
    local _hosts_status=$? _hosts_sig=$1 _hosts_had _hosts_prev
    local -
    set +e
    _hosts_had=_HOSTS_HAD_$_hosts_sig _hosts_prev=_HOSTS_PREV_$_hosts_sig
    _hosts_had=${!_hosts_had:-0} _hosts_prev=${!_hosts_prev-}
    if [[ ${_HOSTS_DOWNING:-} == "$BASHPID" ]]; then
        # a signal while we tear down: finish first, deliver it afterwards
        [[ $_hosts_sig == EXIT ]] || _HOSTS_PENDING=$_hosts_sig
        return 0
    fi
    if [[ ${_HOSTS_OWNER:-} == "$BASHPID" ]]; then
        hosts_down # also puts the caller's traps back
    fi
    if [[ $_hosts_sig == EXIT ]]; then
        if [[ $_hosts_had == 1 ]]; then
            if ((_hosts_status == 0)); then
                true
                eval "$_hosts_prev"
            else
                _hosts_rc "$_hosts_status" || eval "$_hosts_prev"
            fi
        fi
        return 0
    fi
    if [[ $_hosts_had == 1 ]]; then
        eval "$_hosts_prev"
        return
    fi
    trap - "$_hosts_sig"
    kill -s "$_hosts_sig" "$BASHPID"
}

# --- processes inside namespaces -----------------------------------------------------------

_hosts_pids_in() { # NS...: the PIDs inside these namespaces, except ours
    local ns p
    for ns; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            [[ $p == "$$" || $p == "$BASHPID" ]] || printf '%s ' "$p"
        done
    done
}

_hosts_kill_in() { # NS...: TERM, then KILL after HOSTS_KILL_WAIT s; bounded rounds
    local round i waitn=$((${HOSTS_KILL_WAIT:-2} * 10)) quiet=0
    local -a pids
    for ((round = 0; round < 6; round++)); do
        read -ra pids <<<"$(_hosts_pids_in "$@")"
        if ((${#pids[@]} == 0)); then
            # empty twice, 0.3 s apart: a process forked just before the kill (a task
            # starting an an2d, say) shows up only now, and would outlive the namespace
            ((++quiet >= 2)) && return 0
            _hosts_sleep 0.3
            continue
        fi
        quiet=0
        kill -TERM "${pids[@]}" 2>/dev/null
        for ((i = 0; i < waitn; i++)); do
            [[ -n $(_hosts_pids_in "$@") ]] || break
            _hosts_sleep 0.1
        done
        read -ra pids <<<"$(_hosts_pids_in "$@")"
        ((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null
        for ((i = 0; i < 20; i++)); do
            [[ -n $(_hosts_pids_in "$@") ]] || break
            _hosts_sleep 0.05
        done
    done
    [[ -z $(_hosts_pids_in "$@") ]] && return 0
    _hosts_err "processes still inside $*: $(_hosts_pids_in "$@")"
    return 1
}

# _hosts_descendants PID: PID's children, their children, ... (bounded), one a line.
_hosts_descendants() {
    local -a todo=("$1")
    local p c n=0
    while ((${#todo[@]} && n < 1000)); do
        p=${todo[0]}
        todo=("${todo[@]:1}")
        for c in $(pgrep -P "$p" 2>/dev/null); do
            echo "$c"
            todo+=("$c")
            n=$((n + 1))
        done
    done
}

# --- teardown, shared by hosts_down, the watchdog and --reap -------------------------------

_hosts_prefix_ok() { [[ $1 =~ ^an2h[0-9]+(r[0-9]+)?-$ ]]; }

# _hosts_is_watchdog PID DIR: PID is the watchdog of the run in DIR.
_hosts_is_watchdog() {
    [[ -n $1 && -r /proc/$1/cmdline ]] || return 1
    local cmd
    cmd=$(tr '\0' ' ' </proc/"$1"/cmdline 2>/dev/null) || return 1
    [[ $cmd == *" --watchdog $2 "* || $cmd == *" --watchdog $2" ]]
}

_hosts_teardown() { # STATE_DIR
    local -
    set +e
    local dir=$1 prefix='' wd='' ns i status=0
    local -a nss=()
    [[ -r $dir/prefix ]] && prefix=$(<"$dir/prefix")
    [[ -r $dir/watchdog ]] && wd=$(<"$dir/watchdog")
    if _hosts_prefix_ok "$prefix"; then
        for ns in /run/netns/"$prefix"*; do # where ip netns keeps the names
            [[ -e $ns ]] && nss+=("${ns##*/}")
        done
        if ((${#nss[@]})); then
            _hosts_kill_in "${nss[@]}" || status=1
            for ns in "${nss[@]}"; do
                ip netns del "$ns" 2>/dev/null || { [[ -e /run/netns/$ns ]] && status=1; }
            done
        fi
        rm -rf /etc/netns/"$prefix"*
        rmdir /etc/netns 2>/dev/null
    fi
    rm -rf "$dir"
    rmdir "${dir%/*}" 2>/dev/null
    if [[ -n $wd && $wd != "$BASHPID" ]] && _hosts_is_watchdog "$wd" "$dir"; then
        kill -TERM "$wd" 2>/dev/null
        for ((i = 0; i < 40; i++)); do
            _hosts_alive "$wd" || break
            _hosts_sleep 0.05
        done
    fi
    return $status
}

# hosts_reap: tear down runs whose shell and watchdog both died (SIGKILL of both, a reboot
# keeps nothing in /run). A claim younger than 10 s without an owner is being made: left alone.
hosts_reap() {
    local root=${HOSTS_STATE_ROOT:-/run/an2-hosts} d owner wd age
    [[ -d $root ]] || return 0
    for d in "$root"/net-*; do
        [[ -d $d ]] || continue
        owner='' wd=''
        [[ -r $d/owner ]] && owner=$(<"$d/owner")
        [[ -r $d/watchdog ]] && wd=$(<"$d/watchdog")
        [[ -e $d/persist && -e $d/table ]] && continue # HOSTS_PERSIST: up, meant to outlive its shell
        if [[ -z $owner ]]; then
            age=$(($(date +%s) - $(stat -c %Y "$d" 2>/dev/null || date +%s)))
            ((age < 10)) && continue
        elif _hosts_alive "$owner"; then
            continue
        fi
        _hosts_is_watchdog "$wd" "$d" && continue
        _hosts_err "removing what a dead run left: $d ($(cat "$d/prefix" 2>/dev/null))"
        _hosts_teardown "$d"
    done
}

hosts_down() {
    local -
    set +e
    local _hosts_i _hosts_sig
    if [[ -z ${HOSTS_STATE:-} ]]; then
        _hosts_restore_traps
        return 0
    fi
    if [[ ${_HOSTS_OWNER:-} != "$BASHPID" && ! -e $HOSTS_STATE/persist ]]; then
        _hosts_err "hosts_down: the hosts of $HOSTS_STATE belong to the shell that made them (${_HOSTS_OWNER:-another process})"
        return 1
    fi
    _HOSTS_DOWNING=$BASHPID
    for ((_hosts_i = ${#_HOSTS_HOOKS[@]} - 1; _hosts_i >= 0; _hosts_i--)); do
        eval "${_HOSTS_HOOKS[_hosts_i]}" || _hosts_err "hosts_on_exit hook failed: ${_HOSTS_HOOKS[_hosts_i]}"
    done
    _HOSTS_HOOKS=()
    _hosts_teardown "$HOSTS_STATE" || _hosts_err "teardown of $HOSTS_PREFIX incomplete"
    unset HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS
    _HOSTS_OWNER='' _HOSTS_DOWNING=''
    _hosts_restore_traps
    if [[ -n ${_HOSTS_PENDING:-} ]]; then
        _hosts_sig=$_HOSTS_PENDING _HOSTS_PENDING=
        kill -s "$_hosts_sig" "$BASHPID"
    fi
    return 0
}

# --- the watchdog (run as `bash hosts.sh --watchdog DIR`, in its own session) --------------

_hosts_watchdog() {
    local dir=$1 owner limit deadline n max i
    local -a kids
    trap 'exit 0' TERM
    trap '' INT HUP
    exec {_HOSTS_SLEEP_FD}<> <(:)
    owner=$(<"$dir/owner") limit=$(<"$dir/limit") || exit 1
    echo "$BASHPID" >"$dir/watchdog.tmp" && mv "$dir/watchdog.tmp" "$dir/watchdog" || exit 1
    deadline=$((SECONDS + limit)) max=$((limit * 4 + 8)) n=0
    local up=0
    # (a persistent run, once up, is watched only for its time limit, counted from then)
    while ((n++ < max && SECONDS < deadline)) && [[ -d $dir ]] &&
        { [[ -e $dir/persist && -e $dir/table ]] || _hosts_alive "$owner"; }; do
        if ((!up)) && [[ -e $dir/persist && -e $dir/table ]]; then
            up=1 deadline=$((SECONDS + limit)) n=0
        fi
        _hosts_sleep 0.25
    done
    [[ -d $dir ]] || exit 0 # hosts_down ran
    if [[ -e $dir/persist && -e $dir/table ]]; then
        _hosts_err "HOSTS_LIMIT=${limit}s reached: tearing down the persistent run $(cat "$dir/prefix" 2>/dev/null)"
        _hosts_teardown "$dir"
        exit 0
    fi
    if _hosts_alive "$owner"; then
        _hosts_err "HOSTS_LIMIT=${limit}s reached: tearing down $(cat "$dir/prefix" 2>/dev/null) and killing $owner"
        kill -TERM "$owner" 2>/dev/null
        for ((i = 0; i < 20; i++)); do # its trap tears down (and stops us)
            if ! _hosts_alive "$owner" || [[ ! -d $dir ]]; then break; fi
            _hosts_sleep 0.1
        done
        if _hosts_alive "$owner"; then # waiting for a foreground child: end those
            mapfile -t kids < <(_hosts_descendants "$owner")
            ((${#kids[@]} == 0)) || kill -TERM "${kids[@]}" 2>/dev/null
            for ((i = 0; i < 20; i++)); do
                _hosts_alive "$owner" || break
                _hosts_sleep 0.1
            done
        fi
        _hosts_teardown "$dir"
        if _hosts_alive "$owner"; then
            mapfile -t kids < <(_hosts_descendants "$owner")
            kill -KILL "${kids[@]}" "$owner" 2>/dev/null
        fi
    else
        _hosts_teardown "$dir" # its shell died without tearing down (SIGKILL, a replaced trap)
    fi
    exit 0
}

# --- hosts that outlive their shell (HOSTS_PERSIST=1) --------------------------------------

# _hosts_save: what hosts_attach needs, into HOSTS_STATE; the table last (it marks the run up).
_hosts_save() {
    local d=$HOSTS_STATE
    printf '%s\n' "$HOSTS_NAMES" >"$d/names" && printf '%s\n' "$HOSTS_NET4" >"$d/net4" &&
        printf '%s\n' "$HOSTS_NET6" >"$d/net6" && printf '%s\n' "$HOSTS_BRIDGE_NS" >"$d/bridge" &&
        printf '%s\n' "$HOSTS_TABLE" >"$d/table.tmp" && mv "$d/table.tmp" "$d/table" && return 0
    _hosts_err "hosts_up: cannot save the run into $d"
    return 1
}

# hosts_attach DIR: load the persistent run saved in DIR (a HOSTS_STATE) into this shell.
hosts_attach() {
    local dir=${1:?hosts_attach DIR} prefix
    if [[ -n ${HOSTS_STATE:-} && ${_HOSTS_OWNER:-} == "$BASHPID" ]]; then
        _hosts_err "hosts_attach: this shell has hosts up already ($HOSTS_NAMES)"
        return 1
    fi
    if [[ ! -d $dir || -L $dir || ! -e $dir/persist || ! -r $dir/table ]] ||
        [[ $(stat -c %u "$dir") != 0 ]]; then
        _hosts_err "hosts_attach: $dir is no persistent run of hosts that is up"
        return 1
    fi
    prefix=$(<"$dir/prefix") || return 1
    _hosts_prefix_ok "$prefix" || { _hosts_err "hosts_attach: $dir: bad prefix '$prefix'"; return 1; }
    HOSTS_PREFIX=$prefix
    HOSTS_NAMES=$(<"$dir/names") && HOSTS_TABLE=$(<"$dir/table") &&
        HOSTS_NET4=$(<"$dir/net4") && HOSTS_NET6=$(<"$dir/net6") &&
        HOSTS_BRIDGE_NS=$(<"$dir/bridge") || return 1
    HOSTS_STATE=$dir
    _HOSTS_OWNER=''
    export HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV
}

# hosts_tagged TAG: the state directories of persistent runs saved with HOSTS_TAG=TAG.
hosts_tagged() {
    local root=${HOSTS_STATE_ROOT:-/run/an2-hosts} d tag
    for d in "$root"/net-*; do
        [[ -r $d/persist ]] || continue
        tag=$(<"$d/persist") || continue
        [[ $tag == "${1-}" ]] && printf '%s\n' "$d"
    done
    return 0
}

# --- hosts_up ------------------------------------------------------------------------------

# _hosts_claim ROOT: claim a free /24 (an atomic mkdir) and print its octet.
_hosts_claim() {
    local root=$1 start i o
    start=$((($$ + RANDOM) % 250 + 1))
    for ((i = 0; i < 250; i++)); do
        o=$(((start - 1 + i) % 250 + 1))
        mkdir -p "$root" 2>/dev/null
        if mkdir "$root/net-$o" 2>/dev/null; then
            echo "$o"
            return 0
        fi
    done
    _hosts_err "no free /24 under $root"
    return 1
}

# _hosts_pick_prefix: an2h<pid>- unless a namespace or /etc/netns entry already uses it.
_hosts_pick_prefix() {
    local p i used
    for ((i = 0; i < 10; i++)); do
        if ((i == 0)); then p="an2h$$-"; else p="an2h$$r$RANDOM-"; fi
        used=0
        compgen -G "/run/netns/$p*" >/dev/null && used=1
        compgen -G "/etc/netns/$p*" >/dev/null && used=1
        if ((used == 0)); then
            echo "$p"
            return 0
        fi
    done
    _hosts_err "no unused namespace prefix"
    return 1
}

# _hosts_write_etc NS TEXT FILE: /etc/netns/NS/FILE (retries: another run may rmdir /etc/netns).
_hosts_write_etc() {
    local i
    for i in 1 2 3; do
        mkdir -p "/etc/netns/$1" 2>/dev/null && printf '%s' "$2" >"/etc/netns/$1/$3" && return 0
    done
    _hosts_err "cannot write /etc/netns/$1/$3"
    return 1
}

_hosts_build() { # NAME...: everything inside the namespaces; returns 1 at the first failure
    local br=${HOSTS_PREFIX}_br net=${HOSTS_NET4%.0/24} net6=${HOSTS_NET6%::/64}
    local name ns i=0 ip ip6 port table='' hostsfile
    _hosts_do ip netns add "$br" || return 1
    _hosts_do ip netns exec "$br" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1 || return 1
    _hosts_do ip -n "$br" link add br0 type bridge stp_state 0 mcast_snooping 0 || return 1
    _hosts_do ip -n "$br" link set br0 up || return 1
    _hosts_do ip -n "$br" link set lo up || return 1
    HOSTS_BRIDGE_NS=$br
    hostsfile="# /etc/hosts of the emulated hosts of run $HOSTS_PREFIX (scripts/hosts.sh)"$'\n'
    hostsfile+="127.0.0.1	localhost"$'\n'"::1	localhost ip6-localhost ip6-loopback"$'\n'
    for name; do
        i=$((i + 1))
        ns=$HOSTS_PREFIX$name ip=$net.$((10 + i)) ip6=$net6::$((10 + i)) port=p$i
        _hosts_do ip netns add "$ns" || return 1
        _hosts_do ip -n "$ns" link set lo up || return 1
        # our own interface keeps its IPv6 address when it goes down, and skips DAD
        _hosts_do ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.keep_addr_on_down=1 \
            net.ipv6.conf.default.accept_dad=0 || return 1
        _hosts_do ip -n "$br" link add "$port" type veth peer name "$HOSTS_DEV" netns "$ns" || return 1
        _hosts_do ip -n "$br" link set "$port" master br0 up || return 1
        _hosts_do ip -n "$ns" addr add "$ip/24" dev "$HOSTS_DEV" || return 1
        _hosts_do ip -n "$ns" addr add "$ip6/64" dev "$HOSTS_DEV" nodad || return 1
        _hosts_do ip -n "$ns" link set "$HOSTS_DEV" up || return 1
        table+="$name $ns $ip $ip6 $port"$'\n'
        hostsfile+="$ip	$name"$'\n'"$ip6	$name"$'\n'
    done
    for name; do
        ns=$HOSTS_PREFIX$name
        _hosts_write_etc "$ns" "$hostsfile" hosts || return 1
        _hosts_write_etc "$ns" "# no nameserver: the emulated hosts' names are in /etc/hosts"$'\n'"options timeout:1 attempts:1"$'\n' resolv.conf || return 1
    done
    HOSTS_TABLE=${table%$'\n'}
}

hosts_up() {
    local name i octet root=${HOSTS_STATE_ROOT:-/run/an2-hosts} limit=${HOSTS_LIMIT:-} persist
    local -A seen=()
    if [[ -n ${HOSTS_STATE:-} && ${_HOSTS_OWNER:-} == "$BASHPID" ]]; then
        _hosts_err "hosts_up: hosts are up already ($HOSTS_NAMES); hosts_down first"
        return 1
    fi
    (($# >= 1 && $# <= 200)) || { _hosts_err "hosts_up NAME... (1 to 200 names)"; return 1; }
    for name; do
        if ! [[ $name =~ ^[A-Za-z]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$ ]]; then
            _hosts_err "hosts_up: '$name' is no host name (a letter, then letters, digits, '-')"
            return 1
        fi
        [[ -z ${seen[$name]:-} ]] || { _hosts_err "hosts_up: '$name' given twice"; return 1; }
        seen[$name]=1
    done
    case ${HOSTS_PERSIST:-0} in
        0 | 1) persist=${HOSTS_PERSIST:-0} ;;
        *) _hosts_err "HOSTS_PERSIST=$HOSTS_PERSIST: 0 or 1"; return 1 ;;
    esac
    ((persist)) && limit=${limit:-604800}
    limit=${limit:-3600}
    [[ $limit =~ ^[1-9][0-9]{0,6}$ ]] || { _hosts_err "HOSTS_LIMIT=$limit: seconds, 1 or more"; return 1; }
    [[ ${HOSTS_TAG:-} != *$'\n'* ]] || { _hosts_err "HOSTS_TAG: one line"; return 1; }
    [[ $(id -u) == 0 ]] || { _hosts_err "hosts_up needs root"; return 1; }
    for i in ip tc setsid unshare sysctl pgrep; do
        command -v "$i" >/dev/null || { _hosts_err "hosts_up needs $i"; return 1; }
    done

    hosts_reap
    octet=$(_hosts_claim "$root") || return 1
    # from here on a failure still tears down what exists
    HOSTS_STATE=$root/net-$octet
    _HOSTS_OWNER=$BASHPID
    ((persist)) || _hosts_install_traps
    if ! {
        HOSTS_PREFIX=$(_hosts_pick_prefix) &&
            echo "$HOSTS_PREFIX" >"$HOSTS_STATE/prefix" &&
            echo "$limit" >"$HOSTS_STATE/limit" &&
            echo "$BASHPID" >"$HOSTS_STATE/owner" &&
            { ((persist == 0)) || printf '%s\n' "${HOSTS_TAG:-}" >"$HOSTS_STATE/persist"; }
    }; then
        _hosts_err "hosts_up: cannot set up $HOSTS_STATE"
        hosts_down
        return 1
    fi
    # a persistent run's watchdog outlives the caller: an inherited stderr would keep the
    # caller's pipe open (`cluster.sh up | tail` would never end), so it reports nothing
    if ((persist == 0)); then
        setsid -f bash "$_HOSTS_LIB" --watchdog "$HOSTS_STATE" </dev/null >/dev/null
    else
        setsid -f bash "$_HOSTS_LIB" --watchdog "$HOSTS_STATE" </dev/null >/dev/null 2>&1
    fi
    for ((i = 0; i < 100; i++)); do
        [[ -e $HOSTS_STATE/watchdog ]] && break
        _hosts_sleep 0.02
    done
    if [[ ! -e $HOSTS_STATE/watchdog ]]; then
        _hosts_err "hosts_up: the watchdog did not start"
        hosts_down
        return 1
    fi
    HOSTS_NET4=10.82.$octet.0/24
    HOSTS_NET6=fd82:a2:0:$octet::/64
    HOSTS_NAMES="$*"
    if ! _hosts_build "$@" || { ((persist)) && ! _hosts_save; }; then
        hosts_down
        return 1
    fi
    export HOSTS_STATE HOSTS_PREFIX HOSTS_NAMES HOSTS_TABLE HOSTS_NET4 HOSTS_NET6 HOSTS_BRIDGE_NS HOSTS_DEV
    return 0
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    case ${1:-} in
        --watchdog) _hosts_watchdog "${2:?}" ;;
        --reap) hosts_reap ;;
        --down) hosts_attach "${2:?--down DIR}" && hosts_down ;;
        *)
            echo "usage: source ${0##*/} (see its first lines), or: bash ${0##*/} --reap | --down DIR" >&2
            exit 2
            ;;
    esac
fi
