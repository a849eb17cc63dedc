#!/usr/bin/env bash
# pvm_interop_services: the PVM services beyond messaging answer as Debian's libpvm3 does.
# services_check built against Debian's libpvm3 and against libpvm3-an2 must print the same
# (task ids normalised): message handlers, pvm_insert/lookup/delete, catchout, hostsync,
# getfds, getnoresets, export, hoster/tasker/rm registration; then pvm_start_pvmd, each
# library starting the pvmd itself.
set -euo pipefail
bindir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
normalize() { sed -E 's/t[0-9a-f]{5,}/tX/g'; }
(
	source "$here/pvmd_env.sh"
	pvm_env_start "$bindir"
	for lib in deb an2; do
		timeout 60 "$bindir/services_check-$lib" >"$PVM_WORK/$lib.raw" 2>"$PVM_WORK/$lib.err" \
			|| { cat "$PVM_WORK/$lib.raw" "$PVM_WORK/$lib.err" >&2; pvm_env_fail "services_check-$lib failed"; }
		normalize < "$PVM_WORK/$lib.raw" > "$PVM_WORK/$lib.out"
		# a resource manager last: the pvmd sends it the spawn requests afterwards
	done
	if ! diff "$PVM_WORK/deb.out" "$PVM_WORK/an2.out" >&2; then
		pvm_env_fail "libpvm3-an2 answers differently from Debian's libpvm3 (< Debian, > ours)"
	fi
	out=$PVM_WORK/an2.out
	[ -n "${SERVICES_SHOW:-}" ] && cat "$out" "$PVM_WORK/an2.err" >&2
	for want in 'handler ran 1 time(s), got 21, answered 42 (recv 1)' \
		'exit notification handled 1, queued 0' 'lookup 3: 3 data 7' 'delmhf 0, again -32, bad -2, far -32' 'ours kept 1' '[tX] line two' \
		'[tX] no newline' '[tX] EOF' 'getnoresets after PvmNoReset 0 count 1 me 1' \
		'unexport C: B' 'vpackf 0 vunpackf 0 value 31' 'pkmesg 0 upkmesg 1 value 7' 'pkmesgbody 0 value 7' 'context: new 1, other context sees it 0, its own 1, free 0' 'reg_tasker 0, listed 1' 'reg_hoster again (off) 0, listed 0'; do
		grep -qF -- "$want" "$out" || pvm_env_fail "an2 output lacks: $want"
	done
	cat "$out"
	# a tasker: the pvmd has it start the task another task spawns (SM_STTASK), it reports
	# the exit (SM_TASKX) and unregisters
	for lib in deb an2; do
		timeout 30 "$bindir/services_check-$lib" tasker > "$PVM_WORK/tasker-$lib" 2>&1 &
		tasker=$!
		for i in $(seq 300); do grep -q reg_tasker "$PVM_WORK/tasker-$lib" && break; sleep 0.1; done
		grep -q reg_tasker "$PVM_WORK/tasker-$lib" ||
			pvm_env_fail "$lib: the tasker did not register within 30 s: $(cat "$PVM_WORK/tasker-$lib")"
		timeout 30 "$bindir/services_check-$lib" spawnq > "$PVM_WORK/spawnq-$lib" 2>&1 \
			|| pvm_env_fail "$lib: spawn through the tasker failed"
		wait "$tasker" || pvm_env_fail "$lib: tasker failed: $(cat "$PVM_WORK/tasker-$lib")"
		cat "$PVM_WORK/spawnq-$lib" >> "$PVM_WORK/tasker-$lib"
		sort "$PVM_WORK/tasker-$lib" > "$PVM_WORK/tasker-$lib.sorted"
	done
	diff "$PVM_WORK/tasker-deb.sorted" "$PVM_WORK/tasker-an2.sorted" >&2 \
		|| pvm_env_fail "the tasker behaves differently (< Debian, > ours)"
	for want in 'SM_STTASK 1: from a pvmd 1, a task of our host 1, argc 2, argv[1] quit, PVMEPID given 1' \
		'task exit 0, SM_TASKX sent 1' 'spawned 1, its exit seen 1' 'reg_tasker off 0'; do
		grep -qF -- "$want" "$PVM_WORK/tasker-an2" || pvm_env_fail "tasker run lacks: $want"
	done
	cat "$PVM_WORK/tasker-an2"
	# tracing: registering and unregistering a tracer, the masks, as Debian's library answers
	for lib in deb an2; do
		"$bindir/services_check-$lib" tracing > "$PVM_WORK/tracing-$lib" 2>&1
	done
	diff "$PVM_WORK/tracing-deb" "$PVM_WORK/tracing-an2" >&2 ||
		pvm_env_fail "tracing calls answer differently (< Debian, > ours)"
	grep -q "^reg_tracer 0 again (off) 0$" "$PVM_WORK/tracing-an2" ||
		pvm_env_fail "pvm_reg_tracer: $(cat "$PVM_WORK/tracing-an2")"
	"$bindir/services_check-an2" an2only > "$PVM_WORK/an2only.out" 2>&1
	grep -q "^setmwid 0 getmwid 1234 bad -2$" "$PVM_WORK/an2only.out" || pvm_env_fail "pvm_setmwid/getmwid"
)
# a resource manager (TM_SCHED), each library in a pvmd of its own (the pvmd keeps naming
# a resource manager that has exited to new tasks)
for lib in deb an2; do
	(
		source "$here/pvmd_env.sh"
		pvm_env_start "$bindir"
		timeout 30 "$bindir/services_check-$lib" rm > "$PVM_WORK/rm.out" 2>&1 || { cat "$PVM_WORK/rm.out" >&2; pvm_env_fail "$lib: rm run failed"; }
		grep -q '^reg_rm 0 host 1 name 1, listed 1$' "$PVM_WORK/rm.out" || { cat "$PVM_WORK/rm.out" >&2; pvm_env_fail "$lib: pvm_reg_rm"; }
		echo "ok: $lib pvm_reg_rm"
	)
done
# pvm_start_pvmd: no pvmd runs; each library starts one (Debian's, without our paths) and
# stops it with pvm_halt
for lib in deb an2; do
	(
		source "$here/pvmd_env.sh"
		pvm_env_start "$bindir"
		pvm_env_stop_pvmd || true
		PVMD_PID=
		rm -f "$PVM_TMP"/pvmd.* "$PVM_TMP"/pvml.*   # the helper's pvmd is gone: no trace of it
		PVM_ENV_STOCK_SOCKETS=1   # Debian's library leaves its pvmtmp socket names behind
		rc=0
		timeout 30 "$bindir/services_check-$lib" start "$PVM_TMP/hostfile" > "$PVM_WORK/start.out" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || [ "$rc" -eq 143 ] || { cat "$PVM_WORK/start.out" >&2; pvm_env_fail "$lib: start_pvmd run: status $rc"; }
		grep -q '^start_pvmd 0, joined 1$' "$PVM_WORK/start.out" || { cat "$PVM_WORK/start.out" >&2; pvm_env_fail "$lib: pvm_start_pvmd"; }
		grep -q "^start_pvmd again $(printf '%d' -28)$" "$PVM_WORK/start.out" || { cat "$PVM_WORK/start.out" >&2; pvm_env_fail "$lib: second pvm_start_pvmd"; }
		# until the pvmd has removed its address file and exited
		pvmd_left() {
			local p
			[ -e "$PVM_TMP/pvmd.$(id -u).$PVM_VMID" ] && return 0
			for p in $(pvm_env_pids); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = pvmd ] && return 0; done
			return 1
		}
		for i in $(seq 300); do pvmd_left || break; sleep 0.1; done
		pvmd_left && pvm_env_fail "$lib: the pvmd started by pvm_start_pvmd still runs 30 s after pvm_halt"
		echo "ok: $lib pvm_start_pvmd started and pvm_halt stopped the pvmd"
	)
done
