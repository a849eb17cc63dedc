#!/usr/bin/env bash
# fabric_multiuser.sh — the system an2d serving several uids (setpriv: no accounts needed),
# in private directories standing in for /run/an2d:
# 1. started the way systemd's socket activation starts it (a listening socket as descriptor
#    3, LISTEN_PID, LISTEN_FDS): two uids each ping-pong between their own two tasks (both
#    naming an endpoint with the same number: names are per uid); an2stat shows each uid only
#    its own endpoints, root all; a VC to the other uid's endpoint is refused with the reason
#    and its name is not found; a third uid meets each per-user limit with a clear refusal;
#    SIGKILL of one uid's tasks leaves the other's ping-pong running; only root stops it.
# 2. started on demand (--daemon) with --allow-vc for two uids: these two meet over a VC, a
#    third is refused; the directory and socket modes an2d makes; clients refuse a directory
#    others may write and a server that is not root (no byte sent to it); without a system
#    an2d a client uses its per-user socket; an2d --system refuses a non-root uid, --switch without --auth
#    and a passed descriptor that is not one listening SOCK_SEQPACKET socket.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root (setpriv to other uids)"
	exit 77
fi
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; else PY=$(command -v python3 || :); fi
[ -n "$PY" ] || { echo "skipped: needs python3"; exit 77; }

BIN=${AN2_BUILD_DIR:?}/bin
TBIN=$AN2_BUILD_DIR/driver/tests
HELPER=$(dirname "$0")/sock_helper.py
T=${AN2_TEST_TMP:?}
# uids of no account, this run's own (from our pid), so that a suite running beside this one
# (another checkout, another user) never kills or meets ours
UA=$((1000000 + $$ % 1000000 * 4)) UB=$((UA + 1)) UC=$((UA + 2))
rm -rf "$T"
mkdir -p "$T"
chmod 755 "$T"
SYS=$T/sys SYS2=$T/sys2
unset AN2_SOCKET PVM_VMID
export AN2_NO_AUTOSTART=1 PVM_TMP=$T AN2_SYSTEM_DIR=$SYS
PIDS=()
AN2D_PID=

cleanup() {
	local rc=$?
	for p in "${PIDS[@]}"; do
		pkill -KILL -P "$p" 2>/dev/null || true
		kill -KILL "$p" 2>/dev/null || true
	done
	[ -z "$AN2D_PID" ] || kill -TERM "$AN2D_PID" 2>/dev/null || true
	if [ -f "$SYS2/an2d.pid" ]; then kill -TERM "$(cat "$SYS2/an2d.pid")" 2>/dev/null || true; fi
	sleep 0.3
	[ -z "$AN2D_PID" ] || kill -KILL "$AN2D_PID" 2>/dev/null || true
	if [ $rc -ne 0 ]; then
		for f in "$T"/*.log "$T"/*.out "$SYS2"/an2d.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
		done
	fi
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
# as UID CMD...: CMD as that uid and gid, no supplementary groups
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
# until_ok WHAT CMD...: until CMD succeeds (polled); after 30 s (a loaded machine), fail naming WHAT
until_ok() {
	local what=$1 end=$((SECONDS + 30)); shift
	until "$@"; do
		[ $SECONDS -lt $end ] || fail "waited 30 s for $what"
		sleep 0.05
	done
}
# wait_for FILE TEXT: until FILE has a line with TEXT
wait_for() {
	local end=$((SECONDS + 30))
	until grep -q -- "$2" "$1" 2>/dev/null; do
		[ $SECONDS -lt $end ] || fail "no '$2' in $1 within 30 s: $(cat "$1" 2>/dev/null)"
		sleep 0.05
	done
}
# trips FILE: the round trips of the last "second" line of a pair's output
trips() { awk '/^second/ { n = $4 } END { print n + 0 }' "$1"; }
# lines FILE: how many "second" lines it has
lines() { grep -c "^second" "$1" || true; }
# endpoints_of [as UID]: "ENDPOINT UID" of every endpoint an2stat -e shows
endpoints_of() { "$@" "$BIN/an2stat" -e | awk 'f && $1 ~ /^[0-9]+$/ { print $1, $NF } /^ENDPOINT/ { f = 1 }'; }

# --- 1. socket activation
mkdir -m 755 "$SYS"
"$PY" "$HELPER" activate "$SYS/an2d.sock" -- "$BIN/an2d" --system --log-file "$T/an2d.log" \
	--max-user-endpoints 3 --max-user-vcs 2 --max-user-mem 16M --max-user-clients 8 &
AN2D_PID=$!
until_ok "the activated an2d to answer" "$BIN/an2stat" --summary
grep -q "socket activation" "$T/an2d.log" || fail "an2d did not say it was socket-activated"

# each pair runs until told to stop (uid A's never is: it is killed)
as $UA "$TBIN/t_multiuser" pair 0x40001 150 "$T/a.stop" > "$T/a.out" 2>&1 &
PIDS+=($!)
PA=$!
as $UB "$TBIN/t_multiuser" pair 0x40002 150 "$T/b.stop" > "$T/b.out" 2>&1 &
PIDS+=($!)
PB=$!
wait_for "$T/a.out" "^ready"
wait_for "$T/b.out" "^ready"
AID=$(awk '/^ready/ { print $2 }' "$T/a.out")
BID=$(awk '/^ready/ { print $2 }' "$T/b.out")
echo "uid $UA's task: endpoint $AID (t40001); uid $UB's: endpoint $BID (t40002)"

# an2stat: each uid its own two endpoints, root all four (and the switch ports)
for u in $UA $UB; do
	seen=$(endpoints_of as $u)
	[ "$(wc -l <<< "$seen")" = 2 ] || fail "uid $u sees: $seen"
	[ -z "$(awk -v u=$u '$2 != u' <<< "$seen")" ] || fail "uid $u sees another's endpoint: $seen"
	as $u "$BIN/an2stat" -p | awk '$1 ~ /^[0-9]+$/' | grep -q . && fail "uid $u sees switch ports"
done
seen=$(endpoints_of)
[ "$(awk -v a=$UA -v b=$UB '$2 == a || $2 == b' <<< "$seen" | wc -l)" = 4 ] ||
	fail "root sees: $seen"
"$BIN/an2stat" -p | awk '$1 ~ /^[0-9]+$/' | grep -q . || fail "root sees no switch port"
echo "an2stat: each uid sees its own 2 endpoints, root all 4 and the ports"

# the other uid's endpoint and name
as $UB "$TBIN/t_multiuser" probe "$AID" 0x40001 > "$T/probe.out" 2>&1 ||
	fail "probe: $(cat "$T/probe.out")"
grep -q "belongs to another user" "$T/probe.out" || fail "no clear reason: $(cat "$T/probe.out")"
cat "$T/probe.out"
grep -q "endpoint $AID belongs to another user" "$T/an2d.log" ||
	grep -q "refused" "$T/probe.out" || fail "refusal not seen"

# per-user limits, each with its reason
as $UC "$TBIN/t_multiuser" limits "$SYS/an2d.sock" > "$T/limits.out" 2>&1 ||
	fail "limits: $(cat "$T/limits.out")"
cat "$T/limits.out"

# SIGKILL of uid A's two tasks: uid B's ping-pong goes on, checked PDU by PDU
wait_for "$T/b.out" "^second 2 "
wait_for "$T/a.out" "^second 2 "
grep -q "^done" "$T/a.out" && fail "uid $UA's ping-pong ended before the kill"
kids=$(pgrep -P $PA) || true
kill -KILL $PA $kids 2>/dev/null || true   # (one may already have died of the other's death)
wait $PA 2>/dev/null || true
a_gone() { ! endpoints_of | awk -v a=$UA '$2 == a' | grep -q .; }
until_ok "uid $UA's endpoints to go with its tasks" a_gone
# uid B's progress from a line printed after the kill on: a later line with more round trips
n=$(lines "$T/b.out")
until_ok "a line of uid $UB's after the kill" eval '[ "$(lines "$T/b.out")" -gt "$n" ]'
before=$(grep "^second" "$T/b.out" | sed -n "$((n + 1))p" | awk '{ print $4 }')
until_ok "uid $UB's round trips after the kill" eval '[ "$(trips "$T/b.out")" -gt "$before" ]'
touch "$T/b.stop"
st=0
wait $PB || st=$?
[ $st -eq 0 ] || fail "uid $UB's ping-pong failed (status $st): $(cat "$T/b.out")"
after=$(awk '/^done/ { print $3 }' "$T/b.out")
[ "$after" -gt "$before" ] ||
	fail "uid $UB made no progress after the kill ($before then $after round trips)"
echo "uid $UA's tasks killed; uid $UB went on from $before round trips after it to $after, every PDU checked"

# only root stops the system an2d; the passed socket stays its passer's
as $UB "$BIN/an2d" --stop --system > "$T/stop.out" 2>&1 && fail "uid $UB stopped the system an2d"
grep -q "only root" "$T/stop.out" || fail "no reason for the refused stop: $(cat "$T/stop.out")"
"$BIN/an2d" --stop --system || fail "root could not stop the system an2d"
st=0
wait $AN2D_PID || st=$?
AN2D_PID=
[ $st -eq 0 ] || fail "the system an2d exited with status $st"
[ -S "$SYS/an2d.sock" ] || fail "an2d removed the socket it was passed"
[ -z "$(ls "$SYS" | grep -v '^an2d.sock$')" ] || fail "an2d left files: $(ls "$SYS")"
grep "refused\|stop" "$T/an2d.log" | sed 's/^/  log: /'

# --- 2. on demand, two uids allowed to meet
export AN2_SYSTEM_DIR=$SYS2
"$BIN/an2d" --system --daemon --socket-dir "$SYS2" --allow-vc $UA:$UB ||
	fail "an2d --system --daemon failed"
[ "$(stat -c '%a %u' "$SYS2")" = "755 0" ] || fail "directory: $(stat -c '%a %u' "$SYS2")"
[ "$(stat -c '%a %u' "$SYS2/an2d.sock")" = "666 0" ] || fail "socket: $(stat -c '%a %u' "$SYS2/an2d.sock")"
meet() { # meet UID1 UID2 ok|refused
	rm -f "$T"/m1.* "$T"/m2.*
	as $1 "$TBIN/t_multiuser" meet "$T/m2.id" $3 > "$T/m1.out" 2>&1 &
	local p1=$!
	as $2 "$TBIN/t_multiuser" meet "$T/m1.id" $3 > "$T/m2.out" 2>&1 &
	local p2=$!
	PIDS+=($p1 $p2)
	wait_for "$T/m1.out" "^endpoint"
	wait_for "$T/m2.out" "^endpoint"
	awk '/^endpoint/ { print $2 }' "$T/m1.out" > "$T/m1.id"
	awk '/^endpoint/ { print $2 }' "$T/m2.out" > "$T/m2.id"
	if [ "$3" = refused ]; then
		wait_for "$T/m1.out" "^refused"
		wait_for "$T/m2.out" "^refused"
		touch "$T/m1.id.done" "$T/m2.id.done"
	fi
	wait $p1 || fail "uid $1: $(cat "$T/m1.out")"
	wait $p2 || fail "uid $2: $(cat "$T/m2.out")"
	echo "uids $1 and $2: $(tail -n 1 "$T/m1.out")"
}
meet $UA $UB ok
meet $UA $UC refused

# what clients refuse: a directory others may write, a server that is not root
chmod 775 "$SYS2"
as $UA "$BIN/an2stat" > "$T/dir.out" 2>&1 && fail "a client used a group-writable system directory"
chmod 755 "$SYS2"
grep -q "writable by others" "$T/dir.out" || fail "no reason: $(cat "$T/dir.out")"
mkdir -m 755 "$T/fake"
"$PY" "$HELPER" impostor "$T/fake/an2d.sock" $UA 100 > "$T/impostor.out" &
PIDS+=($!)
IMP=$!
wait_for "$T/impostor.out" "^listening"
AN2_SYSTEM_DIR=$T/fake as $UB "$BIN/an2stat" > "$T/imp-client.out" 2>&1 &&
	fail "a client trusted a system socket served by uid $UA"
AN2_SYSTEM_DIR=$T/fake as $UB "$TBIN/t_multiuser" probe 1 1 >> "$T/imp-client.out" 2>&1 &&
	fail "the library trusted a system socket served by uid $UA"
grep -q "not as root" "$T/imp-client.out" || fail "no reason: $(cat "$T/imp-client.out")"
kill -TERM $IMP
wait $IMP || fail "the impostor failed"
grep -q " 0 bytes received" "$T/impostor.out" || fail "$(cat "$T/impostor.out")"
echo "clients refused: $(head -n 1 "$T/dir.out"); $(head -n 1 "$T/imp-client.out"); $(cat "$T/impostor.out")"

# no system an2d there: the per-user socket, as before
AN2_SYSTEM_DIR=$T/none as $UA "$BIN/an2stat" > "$T/peruser.out" 2>&1 || true
grep -q "$T/an2d.$UA/an2d.sock" "$T/peruser.out" || fail "not the per-user socket: $(cat "$T/peruser.out")"

# what an2d refuses at start, each with its reason (no directory made)
refused() { # refused TEXT CMD...: CMD fails and says TEXT
	local out
	out=$("${@:2}" 2>&1) && fail "accepted: ${*:2}"
	grep -q -- "$1" <<< "$out" || fail "no '$1' from ${*:2}: $out"
}
refused "must run as root" as $UA "$BIN/an2d" --system --socket-dir "$T/x"
refused "must authenticate" env -u AN2_AUTH "$BIN/an2d" --system --switch 127.0.0.1:1 --socket-dir "$T/x"
refused "not a listening Unix SOCK_SEQPACKET" \
	bash -c 'exec 3</dev/null; LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" --system --socket-dir "$1"' \
	"$BIN/an2d" "$T/x"
refused "passed 2 descriptors" \
	bash -c 'LISTEN_PID=$$ LISTEN_FDS=2 exec "$0" --system --socket-dir "$1"' "$BIN/an2d" "$T/x"
[ ! -e "$T/x" ] || fail "a refused an2d made $T/x"

"$BIN/an2d" --stop --system || fail "root could not stop the on-demand system an2d"
[ ! -e "$SYS2" ] || fail "the on-demand an2d left $(ls -A "$SYS2")"
echo "multiuser: ok"
