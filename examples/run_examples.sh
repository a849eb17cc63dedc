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

normalize() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/\b4[0-9a-f]{4}\b/tX/g; s/0x[0-9a-f]+/0xN/g; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'; }
# timing prints only numbers (microseconds), never a bare tid: one of 4xxxx us is no tid
normalize_numbers() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'; }
# LeakSanitizer's table of used suppressions depends on the library (and on the children
# whose output pvm_catchout collects): dropped, with the empty lines around it
lsan_free() { grep -Ev '^(\[t[0-9a-f]+\] ?)?$|^(\[t[0-9a-f]+\] )?(-+$|Suppressions used:| +count +bytes| +[0-9]+ +[0-9]+ )' || true; }
# only task ids: what the message-handler table shows (ids, contexts, tags) stays compared
normalize_tids() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/= 26[0-9]{4},/= N,/g'; }   # (and tids in decimal)

# run_set <name> <ep dir> <env...>: every example in its own pvmd, outputs in $results/<name>
run_set() {
	local name=$1 ep=$2; shift 2
	mkdir -p "$results/$name"
	(
		source "$helper"
		PVM_ENV_LIMIT=80   # two sets per test: both fit in ctest's 180 s even when they hang
		pvm_env_start "$ep:/usr/lib/pvm3/lib"   # (pvmgs for the group examples)
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
			norm=normalize
			[ "$prog" = timing ] && norm=normalize_numbers
			{ echo "exit $rc"; $norm < "$PVM_WORK/out" | sort; } > "$results/$name/$label"
			# (LeakSanitizer's table of used suppressions depends on the library: dropped)
			grep -Ev '^$|^-+$|^Suppressions used:|^ +count +bytes|^ +[0-9]+ +[0-9]+ ' \
				"$PVM_WORK/err" | normalize > "$results/$name/$label.err" || true
		done
		# a mailbox service: task0 registers it, task1 finds it and is served twice,
		# task_end stops it
		env "$@" "$ep/task0" svc > "$PVM_WORK/task0.out" 2>&1 &
		local server=$!
		for round in 1 2; do
			for i in $(seq 300); do   # until task0 has put its mailbox entry (task1 finds it)
				rc=0
				env "$@" timeout 20 "$ep/task1" svc > "$PVM_WORK/out" 2>&1 || rc=$?
				[ "$rc" -eq 0 ] && break
				grep -q 'no service running' "$PVM_WORK/out" || break   # another failure: said below
				sleep 0.1
			done
			[ "$rc" -eq 124 ] && { cat "$PVM_WORK/out" >&2; pvm_env_fail "$name: task1 hung"; }
			grep -q 'no service running' "$PVM_WORK/out" &&
				pvm_env_fail "$name: task1 (round $round) found no service: task0 did not register in 300 tries"
			{ echo "exit $rc"; normalize < "$PVM_WORK/out" | sort; } > "$results/$name/task1-$round"
		done
		rc=0
		env "$@" timeout 20 "$ep/task_end" svc 0 > "$PVM_WORK/out" 2>&1 || rc=$?
		{ echo "exit $rc"; normalize < "$PVM_WORK/out" | sort; } > "$results/$name/task_end"
		for i in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
		rc=0
		wait "$server" || rc=$?
		{ echo "exit $rc"; normalize < "$PVM_WORK/task0.out" | sort; } > "$results/$name/task0"
		# one run of a program: exit status and normalised output (sorted unless told)
		one() {   # one <label> <normaliser> <sort|keep> <prog> <args...>
			local label=$1 norm=$2 order=$3 prog=$4; shift 4
			[ -x "$ep/$prog" ] || return 0   # (not every example is installed in /usr/bin)
			rc=0
			env "${envs[@]}" timeout 30 "$ep/$prog" "$@" < "${INPUT:-/dev/null}" > "$PVM_WORK/out" 2>&1 || rc=$?
			[ "$rc" -eq 124 ] && { cat "$PVM_WORK/out" >&2; pvm_env_fail "$name: $label hung"; }
			lsan_free < "$PVM_WORK/out" > "$PVM_WORK/out.clean"
			if [ "$order" = sort ]; then
				{ echo "exit $rc"; $norm < "$PVM_WORK/out.clean" | sort; } > "$results/$name/$label"
			else
				{ echo "exit $rc"; $norm < "$PVM_WORK/out.clean"; } > "$results/$name/$label"
			fi
		}
		envs=("$@")
		[ ${#envs[@]} -eq 0 ] && envs=(PVM_NOTHING=)
		# message boxes: every flag, and the 3.3 calls pvm_insert/lookup/delete (mbox default33)
		for a in default default33 info; do one "mbox-$a" normalize keep mbox "$a"; done
		one lmbi normalize keep lmbi 2 pm e
		one gmbi normalize keep gmbi '*lmbi*'
		cp "$PVM_WORK/out" "$PVM_WORK/gmbi.raw"
		entry=$(grep -o 't[0-9a-f]*lmbi0' "$PVM_WORK/gmbi.raw" | head -1)
		one rme-locked normalize keep rme "${entry:-none}" 0   # persistent, owner gone: locked
		one rme-none normalize keep rme nosuch 0
		# pvm_catchout: starter collects its children's output with stock's [tid] prefixes
		one starter normalize sort starter -n 2 rme nosuch 0
		# message handlers: mhf_server driven by mhf_tickle's menu (load, hit, delete, hit a
		# deleted one, list, exit and rejoin); the handler table is compared as printed
		if [ -x "$ep/mhf_server" ]; then
			env "${envs[@]}" timeout 30 "$ep/mhf_server" > "$PVM_WORK/server" 2>&1 &
			local srv=$!
			# said <n> <text>: until the server has printed text n times (up to 20 s; else the
			# reason goes to feed.fail, for after the session, and the feeding stops)
			said() {
				local i
				for i in $(seq 200); do
					[ "$(grep -c -- "$2" "$PVM_WORK/server")" -ge "$1" ] && return 0
					sleep 0.1
				done
				echo "mhf_server did not print \"$2\" $1 time(s) within 20 s" > "$PVM_WORK/feed.fail"
				return 1
			}
			said 1 "just inserted server" || pvm_env_fail "$name: $(cat "$PVM_WORK/feed.fail")"
			# typed one command at a time, each once the server has shown its handler table
			# for the previous one (a handler must be loaded before the message meant for it)
			shown() { said "$1" 'Display Message Handler Information'; }
			registered() { said "$1" 'just inserted server'; }
			rc=0
			# ... then exit and rejoin (ERJ): the tickle, outside PVM calls at its prompt, must
			# not keep the leaving server waiting; it finds the new server in the mailbox
			# (a failed delete shows no table: its error message is awaited instead)
			{ shown 1 && echo 0 && shown 2 && printf '1\n33\n5\n1\n' && shown 3 &&
			  printf '4\n33\n5\n1\nhello there\n' && shown 4 && printf '1\n34\n5\n6\n' && shown 5 &&
			  printf '4\n34\n5\n6\n77\n' && shown 6 && printf '2\n9\n' && shown 7 &&
			  printf '4\n33\n5\n1\nnobody\n' && shown 8 && printf '2\n9\n' &&
			  said 1 'pvm_delmhf failed - no such handler existed' && echo 0 && shown 9 &&
			  echo 3 && registered 2 && echo && echo 0 && shown 12 &&
			  echo 9; } \
				| env "${envs[@]}" timeout 30 "$ep/mhf_tickle" > "$PVM_WORK/tickle" 2>&1 || rc=$?
			[ -e "$PVM_WORK/feed.fail" ] && pvm_env_fail "$name: mhf session: $(cat "$PVM_WORK/feed.fail")"
			{ echo "exit $rc"; normalize_tids < "$PVM_WORK/tickle" | lsan_free; } > "$results/$name/mhf_tickle"
			rc=0
			wait "$srv" || rc=$?
			{ echo "exit $rc"; normalize_tids < "$PVM_WORK/server" | lsan_free; } > "$results/$name/mhf_server"
		fi
		# groups: gexample (reduce), ptest (3 members, psend/precv), bwtest (2 members)
		printf '4\n3\n' > "$PVM_WORK/gexample.in"
		INPUT=$PVM_WORK/gexample.in one gexample normalize keep gexample
		if [ -x "$ep/ptest" ]; then
			local pids=""
			for i in 1 2 3; do
				env "${envs[@]}" timeout 30 "$ep/ptest" 3 0 4 > "$PVM_WORK/ptest$i" 2>&1 &
				pids="$pids $!"   # (all at once: pvm_freezegroup waits for the 3 members)
			done
			rc=0
			wait $pids || rc=$?
			{ echo "exit $rc"; cat "$PVM_WORK"/ptest? | normalize | sort; } > "$results/$name/ptest"
		fi
		if [ -x "$ep/bwtest" ]; then
			env "${envs[@]}" timeout 30 "$ep/bwtest" > "$PVM_WORK/bw1" 2>&1 &
			local bw=$!   # (both at once: each waits for the other's instance)
			rc=0
			env "${envs[@]}" timeout 30 "$ep/bwtest" > "$PVM_WORK/bw2" 2>&1 || rc=$?
			wait "$bw" || rc=$?
			# (a round trip of 4xxxx us, on a busy machine, is no tid)
			{ echo "exit $rc"; cat "$PVM_WORK/bw1" "$PVM_WORK/bw2" |
				sed -E 's/(Roundtrip T = )[0-9]+/\1N/' | normalize | sort; } > "$results/$name/bwtest"
		fi
		# four spmd tasks spawned by Debian's console: siblings and a token ring (rebuilt
		# programs only: the console cannot hand the drop-in's library path to its children
		# without loading the drop-in itself)
		[ "$mode" = rebuilt ] || return 0
		{
			echo 'spawn -4 -> spmd'
			for i in $(seq 250); do   # until the 4 tasks' output has ended
				[ "$(grep -c 'EOF' "$PVM_WORK/console" 2>/dev/null || true)" -ge 4 ] && break
				sleep 0.1
			done
			[ "$(grep -c 'EOF' "$PVM_WORK/console" 2>/dev/null || true)" -ge 4 ] ||
				echo "the 4 spmd tasks' output did not end within 25 s" > "$PVM_WORK/feed.fail"
			echo quit
		} | env -u LD_LIBRARY_PATH -u LD_PRELOAD timeout 30 stdbuf -oL pvm > "$PVM_WORK/console" 2>&1 || true
		[ -e "$PVM_WORK/feed.fail" ] && { cat "$PVM_WORK/console" >&2; pvm_env_fail "$name: console: $(cat "$PVM_WORK/feed.fail")"; }
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
expect lmbi "just inserted entry <tXlmbiN> at index N"
expect gmbi "N mbox entries returned"
expect rme-none "no service running for <nosuch>"
expect mhf_server "string_catcher1 received message -->> <hello there>"
expect mhf_server "HIT:  ping target 1 - SC1   strings match <hello there>."
expect mhf_server "int_catcher6 received magic number -->> 77."
expect mhf_server "NO HIT:  lmh = 1 - SC1   mhf_catch = -99 - ?C?   strings NO match - local <nobody>"
expect mhf_server "pvm_delmhf failed - no such handler existed."
expect mhf_server "mhf_server: just rejoined pvm..."
expect mhf_tickle "SEAT - server exits pvm and terminate self"
expect gexample "The product of column N is N"
if [ "$mode" = rebuilt ]; then   # (not installed in /usr/bin under these names)
	expect ptest "Data validated from all tasks!"
	expect bwtest "doubles received correctly"
	expect mbox-info "Class \"mbox_test\" has N entries:"
	expect mbox-default33 "Retrieved Value is a Match."
	expect mbox-default "Retrieved Message is a Match."
	expect starter "[tX] rme: tX on machine"
	expect starter "[tX] EOF"
fi
if [ "$mode" = rebuilt ] && [ "$(cat "$results/$ours/spmd4")" != 1 ]; then
	echo "FAIL: the ring of 4 spmd tasks did not finish" >&2
	status=1
fi
exit $status
