#!/usr/bin/env bash
# tasks_check built against Debian's libpvm3 and against libpvm3-an2 must print the same.
set -euo pipefail
bindir=$(cd "$1" && pwd)
source "$(dirname "$0")/pvmd_env.sh"
pvm_env_start "$bindir"
for lib in deb an2; do
	timeout 60 "$bindir/tasks_check-$lib" >"$PVM_WORK/$lib.out" 2>"$PVM_WORK/$lib.err" \
		|| { cat "$PVM_WORK/$lib.out" "$PVM_WORK/$lib.err" >&2; pvm_env_fail "tasks_check-$lib failed"; }
done
if ! diff "$PVM_WORK/deb.out" "$PVM_WORK/an2.out" >&2; then
	pvm_env_fail "libpvm3-an2 answers differently from Debian's libpvm3 (< Debian, > ours)"
fi
grep -q '^exit notification names the child: 1$' "$PVM_WORK/an2.out" || pvm_env_fail "no PvmTaskExit"
grep -q '^spawn missing: 0 codes -7 -7$' "$PVM_WORK/an2.out" || pvm_env_fail "missing program code"
grep -q '^per-sender order kept: 1 all arrived: 1$' "$PVM_WORK/an2.out" || pvm_env_fail "order"
cat "$PVM_WORK/an2.out"
# pvm_halt from our library stops the pvmd; the pvmd's SIGTERM to every task reaches the
# caller too, as with Debian's library (exit status 143)
rc=0
"$bindir/tasks_check-an2" halt > "$PVM_WORK/halt.out" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 143 ] || pvm_env_fail "pvm_halt: status $rc"
for i in $(seq 300); do kill -0 "$PVMD_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PVMD_PID" 2>/dev/null && pvm_env_fail "the pvmd still runs 30 s after pvm_halt"
echo "ok: pvm_halt stopped the pvmd"
