#!/usr/bin/env bash
# Runs grp_check with 8 workers in a private pvmd (with Debian's pvmgs found on ep=/usr/bin).
#   run_groups.sh stock <bindir>    our group library on Debian's libpvm3
#   run_groups.sh interop <bindir>  the same, workers alternating with Debian's libgpvm3
#   run_groups.sh an2 <bindir>      our group library on libpvm3-an2 (exit 77 = skipped while
#                                   libpvm3-an2 has no message boxes)
set -euo pipefail
mode=$1 bindir=$(cd "$2" && pwd)
source "${AN2_SOURCE_DIR:-$(dirname "$0")/../../..}/pvm-an2/tests/pvmd_env.sh"
case $mode in
	stock) master=grp_check-stock; workers="grp_check-stock" ;;
	interop) master=grp_check-stock; workers="grp_check-stock grp_check-deb" ;;
	an2) master=grp_check-an2; workers="grp_check-an2" ;;
	*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
pvm_env_start "$bindir:/usr/bin"
if [ "$mode" = an2 ]; then
	rc=0
	timeout 30 "$bindir/grp_check-an2" probe || rc=$?
	[ "$rc" -eq 77 ] && exit 77
	[ "$rc" -eq 0 ] || pvm_env_fail "message box probe failed ($rc)"
fi
rc=0
timeout 150 "$bindir/$master" master 8 "g$mode" $workers > "$PVM_WORK/out" 2> "$PVM_WORK/err" || rc=$?
cat "$PVM_WORK/out"
[ -s "$PVM_WORK/err" ] && { echo "--- stderr:"; cat "$PVM_WORK/err"; } >&2
[ "$rc" -eq 0 ] || { cat "$PVM_TMP/pvmd.out" >&2 || true; pvm_env_fail "grp_check ($mode) exited $rc"; }
[ "$(grep -c ': ok (instance' "$PVM_WORK/out")" -eq 8 ] || pvm_env_fail "not all 8 workers passed"
# spawned tasks write to the pvmd's log: a sanitizer report there fails the test too
if grep -E "Sanitizer|runtime error" "$PVM_TMP"/pvml.* >&2; then
	pvm_env_fail "a sanitizer report from a spawned task (above)"
fi
# no pvmd (an empty PVM_TMP): every group call fails promptly
PVM_TMP=$PVM_WORK timeout 20 "$bindir/$master" nopvmd || pvm_env_fail "group calls without a pvmd"
echo "ok: $mode, 8 workers"
