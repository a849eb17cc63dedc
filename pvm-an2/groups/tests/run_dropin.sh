#!/usr/bin/env bash
# Debian's own group programs (/usr/bin, linked to libgpvm3.so.3), unmodified, on our
# drop-in libgpvm3.so.3, print what they print on Debian's libgpvm3 (task ids normalised).
#   run_dropin.sh stock <build/lib/dropin>  only our libgpvm3.so.3, on Debian's libpvm3
#   run_dropin.sh an2 <build/lib/dropin>    the whole drop-in directory (libpvm3-an2 too);
#                                           exit 77 while its message boxes answer PvmNotImpl
# Spawned tasks (and pvmgs) get the library path through PVM_EXPORT, as PVM intends.
set -euo pipefail
mode=$1 dropin=$(cd "$2" && pwd)
helper=${AN2_SOURCE_DIR:-$(dirname "$0")/../../..}/pvm-an2/tests/pvmd_env.sh
base=${AN2_BUILD_DIR:-/tmp}/test-tmp
mkdir -p "$base"
results=$(mktemp -d "$base/grp-dropin.XXXXXX")
trap 'rm -rf "$results"' EXIT

if [ "$mode" = stock ]; then
	libdir=$results/lib   # our group library alone, Debian's libpvm3 under it
	mkdir "$libdir"
	ln -s "$dropin/libgpvm3.so.3" "$libdir/libgpvm3.so.3"
else
	libdir=$dropin
fi
resolved=$(LD_LIBRARY_PATH=$libdir ldd /usr/bin/gexample)
grep -q "libgpvm3.so.3 => $libdir/" <<< "$resolved" ||
	{ echo "FAIL: /usr/bin/gexample does not resolve libgpvm3.so.3 to $libdir" >&2; exit 1; }

normalize() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/0x[0-9a-f]{5,}/tX/g; s/[0-9]{6,}/N/g; s/ +/ /g; s/ +$//'; }

# program:args:stdin lines separated by commas
runs="tst:: joinleave:200: thb:4: trsg::4,5 gexample::30,4 frsg::4,5 fgexample::"
run_set() {
	local name=$1; shift
	mkdir -p "$results/$name"
	(
		source "$helper"
		pvm_env_start /usr/bin
		cd "$PVM_WORK"
		for run in $runs; do
			IFS=: read -r prog args input <<< "$run"
			printf "%s\n" ${input//,/ } > "$PVM_WORK/in"
			rc=0
			env "$@" timeout 60 "/usr/bin/$prog" $args < "$PVM_WORK/in" > "$PVM_WORK/out" 2> "$PVM_WORK/err" || rc=$?
			[ "$rc" -eq 124 ] && { cat "$PVM_WORK/out" "$PVM_WORK/err" >&2; pvm_env_fail "$name: $prog hung"; }
			{ echo "exit $rc"; normalize < "$PVM_WORK/out" | { grep -v "Sum of Squares" || true; } | sort; } > "$results/$name/$prog"
			head -5 "$PVM_WORK/err" > "$results/$name/$prog.err"
		done
		if grep -E "Sanitizer|runtime error" "$PVM_TMP"/pvml.* >&2; then
			pvm_env_fail "$name: a sanitizer report from a spawned task (above)"
		fi
	)
}

if [ "$mode" = an2 ]; then
	rc=0
	probe=${AN2_BUILD_DIR:-}/pvm-an2/groups/tests/bin/grp_check-an2
	( source "$helper"; pvm_env_start /usr/bin; "$probe" probe ) > "$results/probe" 2>&1 || rc=$?
	[ "$rc" -eq 77 ] && { cat "$results/probe"; exit 77; }
	[ "$rc" -eq 0 ] || { cat "$results/probe" >&2; echo "FAIL: message box probe" >&2; exit 1; }
fi
# a program needing a libpvm3 symbol the drop-in does not export yet is named and left out
if [ "$mode" = an2 ]; then
	kept=""
	for run in $runs; do
		prog=${run%%:*}
		missing=$(LD_LIBRARY_PATH=$libdir ldd -r "/usr/bin/$prog" 2>&1 |
			sed -n 's/^undefined symbol: \([^ \t]*\).*/\1/p' | sort -u | tr '\n' ' ')
		if [ -n "$missing" ]; then
			echo "note: /usr/bin/$prog left out: the drop-in libpvm3.so.3 lacks: $missing"
		else
			kept="$kept $run"
		fi
	done
	runs=$kept
fi
preload=()
exports=LD_LIBRARY_PATH
if [ -n "${AN2_ASAN_RUNTIME:-}" ]; then   # an instrumented library in uninstrumented programs
	preload=(LD_PRELOAD="$AN2_ASAN_RUNTIME" ASAN_OPTIONS=detect_leaks=0)
	exports=LD_LIBRARY_PATH:LD_PRELOAD:ASAN_OPTIONS
fi
run_set debian
run_set ours LD_LIBRARY_PATH="$libdir" PVM_EXPORT=$exports "${preload[@]}"
status=0
for run in $runs; do
	prog=${run%%:*}
	if ! diff -u "$results/debian/$prog" "$results/ours/$prog" >&2; then
		echo "FAIL: /usr/bin/$prog differs (- Debian's libgpvm3, + ours, $mode); its stderr:" >&2
		cat "$results/ours/$prog.err" >&2
		status=1
	else
		echo "ok: /usr/bin/$prog ($(wc -l < "$results/ours/$prog") lines)"
	fi
done
exit $status
