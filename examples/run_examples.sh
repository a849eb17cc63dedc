#!/usr/bin/env bash
# Debian's pvm-examples on libpvm3-an2, compared with the same programs on Debian's libpvm3.
#   run_examples.sh rebuilt <build/examples>  : <dir>/an2/* vs <dir>/deb/* (rebuilt from source)
#   run_examples.sh dropin <build/lib/dropin> : /usr/bin binaries, unmodified, on the drop-in
# Output is compared after replacing task ids and numbers (timings) by placeholders.
set -euo pipefail
mode=$1 dir=$(cd "$2" && pwd)
helper=${AN2_SOURCE_DIR:-$(dirname "$0")/..}/pvm-an2/tests/pvmd_env.sh
base=${AN2_BUILD_DIR:-/tmp}/test-tmp
mkdir -p "$base"
results=$(mktemp -d "$base/examples.XXXXXX")
trap 'rm -rf "$results"' EXIT
[ -n "${KEEP_RESULTS:-}" ] && trap 'echo "results in $results"' EXIT

normalize() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'; }

# run_set <name> <ep dir> <env...>: every example in its own pvmd, outputs in $results/<name>
run_set() {
	local name=$1 ep=$2; shift 2
	mkdir -p "$results/$name"
	(
		source "$helper"
		PVM_ENV_LIMIT=80   # two sets per test: both fit in ctest's 180 s even when they hang
		pvm_env_start "$ep"
		cd "$PVM_WORK"
		local hello=hello
		[ -x "$ep/hello" ] || hello=hello.pvm   # Debian installs it under this name
		for run in $hello master1 timing spmd inherita:inherit1 inherita:inherit3 inheritb; do
			prog=${run%%:*} arg=${run#*:} label=${run//:/-}
			[ "$arg" = "$run" ] && arg=""
			rc=0
			env "$@" timeout 60 "$ep/$prog" $arg > "$PVM_WORK/out" 2> "$PVM_WORK/err" || rc=$?
			[ "$rc" -eq 124 ] && { cat "$PVM_WORK/out" "$PVM_WORK/err" >&2; pvm_env_fail "$name: $run hung"; }
			label=${label%.pvm}
			{ echo "exit $rc"; normalize < "$PVM_WORK/out" | sort; } > "$results/$name/$label"
			# (LeakSanitizer's table of used suppressions depends on the library: dropped)
			grep -Ev '^$|^-+$|^Suppressions used:|^ +count +bytes|^ +[0-9]+ +[0-9]+ ' \
				"$PVM_WORK/err" | normalize > "$results/$name/$label.err" || true
		done
		# a mailbox service: task0 registers it, task1 finds it and is served twice,
		# task_end stops it
		env "$@" "$ep/task0" svc > "$PVM_WORK/task0.out" 2>&1 &
		local server=$!
		for round in 1 2; do
			for i in $(seq 100); do   # until task0 has put its mailbox entry
				rc=0
				env "$@" timeout 20 "$ep/task1" svc > "$PVM_WORK/out" 2>&1 || rc=$?
				[ "$rc" -eq 0 ] && break
				sleep 0.1
			done
			{ echo "exit $rc"; normalize < "$PVM_WORK/out" | sort; } > "$results/$name/task1-$round"
		done
		rc=0
		env "$@" timeout 20 "$ep/task_end" svc 0 > "$PVM_WORK/out" 2>&1 || rc=$?
		{ echo "exit $rc"; normalize < "$PVM_WORK/out" | sort; } > "$results/$name/task_end"
		for i in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
		rc=0
		wait "$server" || rc=$?
		{ echo "exit $rc"; normalize < "$PVM_WORK/task0.out" | sort; } > "$results/$name/task0"
		# four spmd tasks spawned by Debian's console: siblings and a token ring (rebuilt
		# programs only: the console cannot hand the drop-in's library path to its children
		# without loading the drop-in itself)
		[ "$mode" = rebuilt ] || return 0
		{
			echo 'spawn -4 -> spmd'
			for i in $(seq 100); do
				[ "$(grep -c 'EOF' "$PVM_WORK/console" 2>/dev/null || true)" -ge 4 ] && break
				sleep 0.1
			done
			echo quit
		} | env -u LD_LIBRARY_PATH -u LD_PRELOAD timeout 30 stdbuf -oL pvm > "$PVM_WORK/console" 2>&1 || true
		grep -c 'token ring done' "$PVM_WORK/console" > "$results/$name/spmd4" || true
		cp "$PVM_WORK/console" "$results/$name/console.log"
	)
}

if [ "$mode" = rebuilt ]; then
	PVM_ENV_STOCK_SOCKETS=1 run_set deb "$dir/deb"
	run_set an2 "$dir/an2"
	ref=deb ours=an2
else
	ldd_out=$(LD_LIBRARY_PATH=$dir ldd /usr/bin/master1)
	grep -q "$dir/libpvm3.so.3" <<< "$ldd_out" || { echo "FAIL: drop-in not picked up: $ldd_out"; exit 1; }
	extra=(LD_LIBRARY_PATH="$dir")
	export_list=LD_LIBRARY_PATH
	if [ -n "${AN2_ASAN_RUNTIME:-}" ]; then
		# sanitizer build: the unmodified binaries need the ASan runtime loaded first
		extra+=(LD_PRELOAD="$AN2_ASAN_RUNTIME" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0")
		export_list=LD_LIBRARY_PATH:LD_PRELOAD:ASAN_OPTIONS
	fi
	PVM_ENV_STOCK_SOCKETS=1 run_set deb /usr/bin
	run_set an2 /usr/bin PVM_EXPORT="$export_list" "${extra[@]}"
	ref=deb ours=an2
fi

status=0
for f in "$results/$ref"/[!c]*; do
	n=$(basename "$f")
	if ! diff "$f" "$results/$ours/$n" >&2; then
		echo "FAIL: $n differs (< Debian's libpvm3, > libpvm3-an2)" >&2
		status=1
	else
		echo "ok: $n ($(head -c 60 "$f" | tr '\n' ' '))"
	fi
done
# the same behaviour must also be the right one (not the same failure twice)
expect() {   # expect <result> <text>
	grep -qF -- "$2" "$results/$ours/$1" || { echo "FAIL: $1 lacks \"$2\"" >&2; status=1; }
}
expect hello "hello, world from"
expect master1 "SUCCESSFUL"
expect spmd "token ring done"
expect timing "RTT Avg uSec"
expect inherita-inherit1 "END - sent from inheritN"
expect inheritb "received from Nnd inheritN"
expect task1-2 "you are service request number N"
expect task_end "exit 0"
expect task0 "handled N service requests"
if [ "$mode" = rebuilt ] && [ "$(cat "$results/$ours/spmd4")" != 1 ]; then
	echo "FAIL: the ring of 4 spmd tasks did not finish" >&2
	status=1
fi
exit $status
