#!/usr/bin/env bash
# Tests of the example applications (examples/apps), each in its own pvmd:
#   run_apps.sh serial <build/examples/apps>    every application on Debian's libpvm3 and on
#       libpvm3-an2, 1, 3 and 4 tasks, small sizes: exit 0 and "result=ok" (the serial
#       result); the AN2 runs crossed the switch; with APP_TEST_CORRUPT=1 each check fails
#   run_apps.sh alltoall <build/examples/apps>  32 tasks all-to-all (496 VCs) on libpvm3-an2
#       completes with every message checked, over AN2; and on Debian's library
#   run_apps.sh limits <build/examples/apps>    an2d's per-task VC limit and per-host client
#       limit exceeded: the tasks say so and finish through the pvmds; a team too large for
#       the applications is refused with a message
set -euo pipefail
mode=$1 dir=$(cd "$2" && pwd)
source "${AN2_SOURCE_DIR:-$(dirname "$0")/../..}/pvm-an2/tests/pvmd_env.sh"
bin=${AN2_BUILD_DIR:?}/bin
PVM_ENV_LIMIT=${PVM_ENV_LIMIT:-110}
pvm_env_start "$bin"
cd "$PVM_WORK"

# run <expect-status> <label> <program> <args...>: runs with a time limit; its output in $out;
# returns once the tasks it spawned (the pvmd's children) have exited too: the cells a task
# sends as it leaves are not counted in the next run
run() {
	local want=$1 label=$2 rc=0 prog; shift 2
	timeout 60 "$@" > "$PVM_WORK/out" 2> "$PVM_WORK/err" || rc=$?
	out=$(cat "$PVM_WORK/out")
	if [ "$rc" -ne "$want" ]; then
		cat "$PVM_WORK/out" "$PVM_WORK/err" >&2
		pvm_env_fail "$label: exit status $rc, $want expected"
	fi
	prog=$(basename "$1")
	for _ in $(seq 300); do
		pgrep -P "$PVMD_PID" -x "${prog:0:15}" >/dev/null || return 0
		sleep 0.1
	done
	pvm_env_fail "$label: its spawned tasks still run 30 s after it ended"
}

# cells <an2d socket>: the cells that have crossed the switch so far (a failed read is said)
cells() {
	local n
	for _ in 1 2 3; do
		n=$("$bin/an2stat" -p --socket "$1" 2>/dev/null |
			awk '$1 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }') && { echo "$n"; return; }
		sleep 0.1
	done
	pvm_env_fail "an2stat could not read an2d's counters at $1"
}

# own_an2d [options]: an an2d for the AN2 runs, its socket exported to the spawned tasks
own_an2d() {
	AN2_SOCKET=$PVM_TMP/an2d-own.sock
	export AN2_SOCKET PVM_EXPORT=AN2_SOCKET
	"$bin/an2d" --socket "$AN2_SOCKET" --log-file "$PVM_WORK/an2d.log" "$@" </dev/null >/dev/null 2>&1 &
	AN2D_PID=$!
	# (serving, not only bound: cells() reads its counters at once, and set -e ends the test
	# on a failed read)
	for _ in $(seq 300); do
		"$bin/an2stat" --summary --socket "$AN2_SOCKET" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	pvm_env_fail "an2d did not serve its socket within 30 s"
}
stop_an2d() {
	"$bin/an2d" --stop --socket "$AN2_SOCKET" >/dev/null 2>&1 || true
	wait "$AN2D_PID" 2>/dev/null || true
	unset AN2_SOCKET PVM_EXPORT
}

case $mode in
serial)
	own_an2d
	for app in heat:48 samplesort:5000 matmul:36 mandel:40 alltoall:300; do
		name=${app%%:*} size=${app#*:}
		for lib in deb an2; do
			for tasks in 1 3 4; do
				before=$(cells "$AN2_SOCKET")
				run 0 "$lib $name $tasks tasks" "$dir/$lib/$name" --tasks "$tasks" --size "$size"
				grep -q "^$name tasks=$tasks hosts=1 size=$size .* result=ok" <<< "$out" ||
					pvm_env_fail "$lib $name $tasks tasks: $out"
				after=$(cells "$AN2_SOCKET")
				if [ "$tasks" -gt 1 ] && [ "$lib" = an2 ] && [ "$after" -le "$before" ]; then
					pvm_env_fail "$lib $name $tasks tasks: no cell crossed the switch"
				fi
				if [ "$lib" = deb ] && [ "$after" -ne "$before" ]; then
					pvm_env_fail "$lib $name: Debian's library sent cells?"
				fi
				echo "ok: $lib $out"
			done
			# the check must be able to fail: one value spoilt before it
			APP_TEST_CORRUPT=1 run 1 "$lib $name spoilt" "$dir/$lib/$name" --tasks 3 --size "$size"
			grep -q "result=MISMATCH" <<< "$out" || pvm_env_fail "$lib $name spoilt: $out"
			echo "ok: $lib $name with a spoilt value: MISMATCH, exit 1"
		done
	done
	stop_an2d
	;;
alltoall)
	own_an2d
	for lib in an2 deb; do
		before=$(cells "$AN2_SOCKET")
		run 0 "$lib alltoall 32 tasks" "$dir/$lib/alltoall" --tasks 32 --size 1000 --iters 4
		grep -q "^alltoall tasks=32 .* result=ok messages=3968 .* bad=0 out_of_order=0" <<< "$out" ||
			pvm_env_fail "$lib alltoall: $out"
		after=$(cells "$AN2_SOCKET")
		# 32 x 31 x 4 messages of 1,000 bytes, 22 cells each over AN2; a pair's first message
		# may go through the pvmds (its VC not up within 5 ms, on a busy machine): the other 3
		[ "$lib" = deb ] || [ $((after - before)) -ge $(((3968 - 32 * 31) * 22)) ] ||
			pvm_env_fail "an2 alltoall: only $((after - before)) cells crossed the switch"
		echo "ok: $lib $out"
	done
	stop_an2d
	;;
limits)
	run 2 "65 tasks" "$dir/an2/heat" --tasks 65
	grep -q "tasks wants a whole number from 1 to 64" "$PVM_WORK/err" ||
		pvm_env_fail "65 tasks: $(cat "$PVM_WORK/err")"
	echo "ok: 65 tasks refused: $(cat "$PVM_WORK/err")"
	for limit in "--vcs 3" "--max-clients 3"; do
		own_an2d $limit
		run 0 "alltoall beyond $limit" "$dir/an2/alltoall" --tasks 8 --size 500 --iters 10
		grep -q "result=ok .* bad=0" <<< "$out" || pvm_env_fail "beyond $limit: $out"
		case $limit in
		--vcs*) said="no free VC (per-endpoint VC limit" ;;
		*) said="an2d serves 3 clients already (--max-clients)" ;;
		esac
		# (the spawned tasks' stderr reaches the pvmd log through the pvmd: until it has)
		for _ in $(seq 300); do
			grep -qF "$said" "$PVM_WORK/err" "$PVM_TMP"/pvml.* && break
			sleep 0.1
		done
		grep -qF "$said" "$PVM_WORK/err" "$PVM_TMP"/pvml.* ||
			pvm_env_fail "beyond $limit: no '$said' in the logs within 30 s"
		echo "ok: beyond an2d $limit: said '$said', finished: $out"
		stop_an2d
	done
	;;
*) pvm_env_fail "unknown mode $mode" ;;
esac
