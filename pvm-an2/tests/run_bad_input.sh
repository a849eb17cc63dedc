#!/usr/bin/env bash
# No pvmd, a pvmd that dies under a blocked receive, a fake pvmd sending garbage.
set -euo pipefail
bindir=$(cd "$1" && pwd)
source "$(dirname "$0")/pvmd_env.sh"

# no pvmd at all: an empty PVM_TMP, and then a stale address file
base=${AN2_BUILD_DIR:-/tmp}/test-tmp
mkdir -p "$base"
empty=$(mktemp -d "$base/nopvmd.XXXXXX")
trap 'rm -rf "$empty"' EXIT
PVM_TMP=$empty PVM_VMID=none timeout 20 "$bindir/bad_input" nopvmd
echo "$empty/gone.sock" > "$empty/pvmd.$(id -u).stale"
PVM_TMP=$empty PVM_VMID=stale timeout 20 "$bindir/bad_input" nopvmd
rm -rf "$empty"
trap - EXIT

pvm_env_start "$bindir"
# the pvmd dies while we wait: once the client has said "waiting" and sleeps (in pvm_recv)
"$bindir/bad_input" blocked > "$PVM_WORK/blocked.out" &
client=$!
state() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0; s=${s##*) }; echo "${s%% *}"; }
for i in $(seq 300); do
	grep -q waiting "$PVM_WORK/blocked.out" 2>/dev/null && [ "$(state "$client")" = S ] && break
	kill -0 "$client" 2>/dev/null || pvm_env_fail "the client ended before the pvmd died"
	sleep 0.1
done
[ "$(state "$client")" = S ] && grep -q waiting "$PVM_WORK/blocked.out" ||
	pvm_env_fail "the client was not waiting in pvm_recv after 30 s"
kill -KILL "$PVMD_PID"
wait "$PVMD_PID" 2>/dev/null || true
rm -f "$PVM_TMP"/pvmd.*."$PVM_VMID" "$PVM_TMP"/pvmtmp*   # what the killed pvmd left
timeout 30 tail --pid=$client -f /dev/null || pvm_env_fail "blocked receive hung after the pvmd died"
wait "$client" || pvm_env_fail "blocked receive did not report PvmSysErr"
# a fake pvmd with malformed traffic (it takes the real one's place in PVM_TMP)
timeout 20 "$bindir/bad_input" fake-corrupt
timeout 20 "$bindir/bad_input" fake-close
timeout 30 "$bindir/bad_input" fake-random
