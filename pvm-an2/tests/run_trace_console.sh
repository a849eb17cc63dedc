#!/usr/bin/env bash
# pvm_trace_console: Debian's console traces a task of ours as it traces one of Debian's:
# `spawn -@FILE` of trace_prog after `trace + ...` with buffering (`trace buf`), and with
# `trace opt time` and `trace opt count` (one summary per task at pvm_exit). Each trace, once
# normalised (trace_normalize.py), is the same for trace_prog-deb and trace_prog-an2; and the
# same again with the console itself on the drop-in.
# Usage: run_trace_console.sh TESTBINDIR BUILDDIR
set -euo pipefail
bindir=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
(
	source "$here/pvmd_env.sh"
	pvm_env_start "$bindir"
	prog=$PVM_WORK/trace_prog   # one path for the program in every run: spawn's records name it
	console() {   # NAME BINARY COMMAND...: the console spawns the program traced into NAME.trf
		local name=$1 binary=$2 n
		shift 2
		cp "$binary" "$prog"
		local dir=$PVM_WORK/$name
		mkdir -p "$dir"
		mkfifo "$dir/in"
		( cd "$dir" && exec env ${CONSOLE_ENV:-} stdbuf -oL pvm < in > screen 2>&1 ) &
		local pid=$!
		exec 8> "$dir/in"
		local c
		for c in "$@" "spawn -@$dir/trace.trf $prog"; do echo "$c" >&8; done
		# the console says "[1] finished" when every task of the job has ended
		for n in $(seq 600); do
			grep -q "finished" "$dir/screen" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		grep -q "finished" "$dir/screen" ||
			pvm_env_fail "$name: the console's job did not finish: $(cat "$dir/screen")"
		echo quit >&8
		exec 8>&-
		wait "$pid" || true
		python3 "$here/trace_normalize.py" "$dir/trace.trf" > "$dir.norm"
	}
	compare() {   # NAME COMMAND...: Debian's and ours, the same trace
		local name=$1
		shift
		console "$name-deb" "$bindir/trace_prog-deb" "$@"
		console "$name-an2" "$bindir/trace_prog-an2" "$@"
		diff "$PVM_WORK/$name-deb.norm" "$PVM_WORK/$name-an2.norm" >&2 ||
			pvm_env_fail "$name: our trace differs from Debian's (< Debian, > ours)"
		echo "$name: the same $(grep -vc '^==' "$PVM_WORK/$name-an2.norm") records"
	}
	# (mhf_invoke out: libpvm3-an2 does not trace message handlers' invocations, where
	# Debian's traces its own handler of TC_SIBLINGS and the calls that handler makes)
	calls="trace + initsend pkint pkstr pkdouble upkint upkstr upkdouble - mhf_invoke"
	compare buffered "$calls" "trace buf 400"
	grep -qF '"mcast(0.0)" { T, T, P, 20, 12, 0, [2] { C1, C2 } }' "$PVM_WORK/buffered-an2.norm" ||
		pvm_env_fail "buffered: the multicast is not in the trace"
	# the console on the drop-in (its tasks on their own libraries: it exports no library path)
	CONSOLE_ENV="LD_LIBRARY_PATH=$build/lib/dropin${AN2_ASAN_RUNTIME:+ LD_PRELOAD=$AN2_ASAN_RUNTIME}" \
		console buffered-console-dropin "$bindir/trace_prog-an2" "$calls" "trace buf 400"
	grep -q "pvm> " "$PVM_WORK/buffered-console-dropin/screen" ||
		pvm_env_fail "the console did not run on the drop-in"
	diff "$PVM_WORK/buffered-deb.norm" "$PVM_WORK/buffered-console-dropin.norm" >&2 ||
		pvm_env_fail "console on the drop-in: the trace differs from Debian's (< Debian, > ours)"
	echo "buffered, the console on the drop-in: the same records"
	compare time "$calls" "trace opt time"
	compare count "$calls" "trace opt count"
	# a summary from each task: the child's lists its calls and counts (an event each for the
	# entry and the exit, one for pvm_exit), the parent's its times
	grep -q "\"profiling(0)\" { T, T, C1, 11, \[11\] \[[0-9]*\] { \"exit\", \"initsend\", \"mytid\", \"parent\", \"pkdouble\", \"recv\", \"send\", \"upkint\", \"upkstr\", \"psend\", \"siblings\" }, \[11\] { 1, 2, 2, 2, 2, 4, 2, 2, 2, 2, 2 } }" "$PVM_WORK/count-an2.norm" ||
		pvm_env_fail "count: the first child's summary is not as expected: $(grep profiling "$PVM_WORK/count-an2.norm")"
	grep -q '"timing(0)" { T, T, P, ' "$PVM_WORK/time-an2.norm" ||
		pvm_env_fail "time: no timing summary from the parent"
)
