#!/usr/bin/env bash
# multiuser_pvm.sh — PVM tasks of two uids (setpriv, no accounts needed) on one system an2d
# (in a private directory standing in for /run/an2d): each uid runs Debian's pvmd of its own,
# without PVM_VMID, and cluster-ping (libpvm3-an2) with its spawned child; every round trip
# must be answered rightly, and an2d's log must show a VC opened for each uid, each joining
# two endpoints of that uid.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root (setpriv to other uids)"
	exit 77
fi
command -v pvmd >/dev/null || { echo "skipped: no pvmd (Debian's pvm)"; exit 77; }
BIN=${AN2_BUILD_DIR:?}/bin
T=${AN2_TEST_TMP:?}
SYS=$T/sys
export AN2_SYSTEM_DIR=$SYS   # (never the real /run/an2d)
# uids of no account, this run's own (from our pid), so that a suite running beside this one
# (another checkout, another user) never kills or meets ours
USERS=($((5000000 + $$ % 1000000 * 4)) $((5000001 + $$ % 1000000 * 4)))
rm -rf "$T"
mkdir -p "$T"
chmod 755 "$T"
AN2D_PID=
PVMDS=()

cleanup() {
	local rc=$?
	for p in "${PVMDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	# the pvmds end (up to 5 s), then whatever of the uids is left is killed, and gone
	for _ in $(seq 50); do pgrep -U "$(IFS=,; echo "${USERS[*]}")" -x pvmd >/dev/null || break; sleep 0.1; done
	for _ in $(seq 50); do
		pgrep -U "$(IFS=,; echo "${USERS[*]}")" >/dev/null || break
		for u in "${USERS[@]}"; do pkill -KILL -U "$u" 2>/dev/null || true; done
		sleep 0.1
	done
	if [ -n "$AN2D_PID" ]; then
		kill -TERM "$AN2D_PID" 2>/dev/null || true
		wait "$AN2D_PID" 2>/dev/null || true
	fi
	if [ $rc -ne 0 ]; then
		for f in "$T"/*.out "$T"/an2d.log "$T"/pvm.*/pvml.*; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
		done
	fi
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
# as UID CMD...: CMD as that uid, with that uid's PVM setup and the system an2d
as() {
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --clear-groups \
		env -u PVM_VMID -u AN2_SOCKET -u LD_LIBRARY_PATH -u LD_PRELOAD -u PVM_ALLOW_ROOT \
		HOME="$T/pvm.$u" PVM_TMP="$T/pvm.$u" PVM_ROOT=/usr/lib/pvm3 AN2_SYSTEM_DIR="$SYS" AN2_NO_AUTOSTART=1 "$@"
}

mkdir -m 755 "$SYS"
"$BIN/an2d" --system --socket-dir "$SYS" --log-file "$T/an2d.log" &
AN2D_PID=$!
for _ in $(seq 300); do
	"$BIN/an2stat" --summary >/dev/null 2>&1 && break
	sleep 0.1
done
"$BIN/an2stat" --summary >/dev/null || fail "the system an2d does not answer"

for u in "${USERS[@]}"; do
	mkdir -m 700 "$T/pvm.$u"
	echo "* ep=$BIN" > "$T/pvm.$u/hostfile"
	chown -R "$u:$u" "$T/pvm.$u"
	as "$u" pvmd "$T/pvm.$u/hostfile" < /dev/null > "$T/pvmd.$u.out" 2>&1 &
	PVMDS+=($!)
done
for u in "${USERS[@]}"; do
	for _ in $(seq 300); do [ -s "$T/pvm.$u/pvmd.$u" ] && break; sleep 0.1; done
	[ -s "$T/pvm.$u/pvmd.$u" ] || fail "uid $u's pvmd did not start: $(cat "$T/pvmd.$u.out")"
done

pids=()
for u in "${USERS[@]}"; do
	(cd "$T" && as "$u" "$BIN/cluster-ping" 200) > "$T/ping.$u.out" 2>&1 &
	pids+=($!)
done
for i in 0 1; do
	wait "${pids[$i]}" || fail "uid ${USERS[$i]}'s cluster-ping failed: $(cat "$T/ping.${USERS[$i]}.out")"
	grep -q "round trips ok" "$T/ping.${USERS[$i]}.out" ||
		fail "uid ${USERS[$i]}: $(cat "$T/ping.${USERS[$i]}.out")"
	echo "uid ${USERS[$i]}: $(grep "round trips ok" "$T/ping.${USERS[$i]}.out")"
done

# an2d's log: which uid opened each endpoint, and the VCs between them
awk -v a="${USERS[0]}" -v b="${USERS[1]}" '
	/opened by pid/ { id = $4; for (i = 1; i <= NF; i++) if ($i == "(uid") { u = $(i + 1); sub(/\).*/, "", u) } uid[id] = u }
	/VC open:/ { x = $6; y = $0; sub(/.*<-> endpoint /, "", y); split(y, f, " "); y = f[1]
		if (uid[x] != uid[y]) { print "VC across uids: " $0; bad = 1 }
		vcs[uid[x]]++ }
	END { if (!vcs[a] || !vcs[b]) { print "VCs per uid: " a " " vcs[a] + 0 ", " b " " vcs[b] + 0; bad = 1 }
		if (!bad) print "VCs: uid " a " " vcs[a] ", uid " b " " vcs[b] ", none across uids"
		exit bad }' "$T/an2d.log" || fail "an2d's log"

for p in "${PVMDS[@]}"; do kill -TERM "$p"; done
for p in "${PVMDS[@]}"; do wait "$p" 2>/dev/null || true; done
PVMDS=()
"$BIN/an2d" --stop --system || fail "root could not stop the system an2d"
st=0
wait "$AN2D_PID" || st=$?
AN2D_PID=
[ $st -eq 0 ] || fail "the system an2d exited with status $st"
echo "multiuser_pvm: ok"
