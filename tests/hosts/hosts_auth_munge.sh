#!/usr/bin/env bash
# Links authenticated with MUNGE, as on a cluster that runs it: every host has its own munged,
# all with the fabric's MUNGE key. Hosts whose munged shares the key attach and their tasks
# exchange over a VC; a host whose munged has another key is refused at both ends, and one
# that offers a key file instead is refused with the reason.
. "$(dirname "$0")/fabric_hosts_lib.sh"
command -v munged >/dev/null && command -v mungekey >/dev/null ||
    skip "munge not installed (scripts/deps.sh installs it)"
fh_up sw alpha beta mallory

# munged wants every directory above its socket searchable by all; the rest of T stays ours
chmod 0711 "$T"
mungekey -c -k "$T/munge.key" && mungekey -c -k "$T/other.key" || fail "mungekey"
MUNGEDS=()
munge_stop() { local m; for m in "${MUNGEDS[@]}"; do munged -s --socket="$T/m-$m/sock" >/dev/null 2>&1 || :; done; }
FH_EXTRA_STOP+=(munge_stop)
# munge_up NAME KEY: NAME's munged, its socket $T/m-NAME/sock
munge_up() {
    mkdir -m 0711 "$T/m-$1"
    MUNGEDS+=("$1")
    munged -f --socket="$T/m-$1/sock" --key-file="$2" --pid-file="$T/m-$1/pid" \
        --log-file="$T/m-$1/log" --seed-file="$T/m-$1/seed" ||
        fail "munged $1 did not start: $(tail -n 3 "$T/m-$1/log")"
}
for m in sw alpha beta; do munge_up "$m" "$T/munge.key"; done
munge_up mallory "$T/other.key"

fh_switch s1 sw --auth "munge:$T/m-sw/sock"
fh_an2d alpha sw:7000 --auth "munge:$T/m-alpha/sock"
fh_an2d beta sw:7000 --auth "munge:$T/m-beta/sock"
fh_in alpha env AN2_SOCKET="$(fh_sock alpha)" AN2_PEER_SOCKET="$(fh_sock beta)" \
    "$TBIN/t_exchange" >/dev/null || fail "alpha and beta could not exchange over MUNGE-authenticated links"

# mallory_an2d AUTH: an an2d on mallory with AUTH must not attach
mallory_an2d() {
    if fh_in mallory "$BIN/an2d" -d --socket "$T/mallory.sock" --switch sw:7000 --auth "$1" \
           --log-file "$T/mallory.log" </dev/null >/dev/null 2>&1; then
        "$BIN/an2d" --socket "$T/mallory.sock" --stop
        fail "an an2d with --auth $1 attached to the switch"
    fi
}
mallory_an2d "munge:$T/m-mallory/sock"
# each end checks the other's credential on its own: mallory's an2d may give up before the
# switch has said why it refused mallory, so wait for the switch to say it
fh_log_shows s1 "refused: its MUNGE credential is refused" ||
    fail "the switch does not say why it refused another MUNGE key: $(tail -n 3 "$T/s1.log")"
grep -q "not authenticated: its MUNGE credential is refused" "$T/mallory.log" ||
    fail "mallory's an2d does not refuse the switch: $(tail -n 3 "$T/mallory.log")"
(umask 077 && head -c 32 /dev/urandom >"$T/link2.key")
mallory_an2d "key:$T/link2.key"
fh_log_shows s1 "refused: it authenticates with a key, we with MUNGE" ||
    fail "the switch does not say why it refused a key: $(tail -n 3 "$T/s1.log")"
fh_switch_shows s1 "^links refused at the handshake 2," ||
    fail "the switch did not count 2 links refused: $("$BIN/an2stat" --switch "$T/s1.ctl" | head -n 3)"
echo "hosts_auth_munge: ok"
