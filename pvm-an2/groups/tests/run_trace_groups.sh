#!/usr/bin/env bash
# grp_trace_compare: trace_groups (the group calls, alone in its group; Debian's pvmgs) traced
# by Debian's tracer gives the same records on Debian's libgpvm3 and libpvm3 as on
# libgpvm3-an2 and libpvm3-an2 (the group calls' events, none of the PVM calls they make to
# pvmgs), normalised as in pvm_trace_compare (trace_normalize.py), and the same answers.
# Usage: run_trace_groups.sh GROUPS_TEST_BINDIR
set -euo pipefail
bindir=$(cd "$1" && pwd)
tests=${AN2_SOURCE_DIR:-$(dirname "$0")/../../..}/pvm-an2/tests
(
	source "$tests/pvmd_env.sh"
	source "$tests/trace_env.sh"
	TRACE_NORMALIZE=$tests/trace_normalize.py
	pvm_env_start "$bindir:/usr/bin"
	TRACE_WORK=$PVM_WORK TRACE_PROG=$PVM_WORK/trace_groups TRACE_WANT="lvgroup: 0"
	TRACE_MASK="joingroup lvgroup gsize getinst gettid barrier bcast reduce scatter gather initsend"
	# pvmgs first, untraced: a group program run before the tracer starts it (the tracer would
	# wait for the pvmgs it saw spawned, which runs on)
	timeout 60 "$bindir/trace_groups-deb" > "$PVM_WORK/untraced.out" 2>&1 ||
		pvm_env_fail "trace_groups (untraced) failed: $(cat "$PVM_WORK/untraced.out")"
	trace_run deb "$bindir/trace_groups-deb"
	trace_run an2 "$bindir/trace_groups-an2"
	# what the comparison rests on: the group calls are there, with their data
	for want in '"joingroup(0.0)" { T, T, P, [7] { "traced" } }' '"joingroup(1.1)" { T, T, P, 0 }' \
		'"gsize(1.1)" { T, T, P, 1 }' '"getinst(0.0)" { T, T, P, [7] { "traced" }, P }' \
		'"gettid(1.1)" { T, T, P, P }' '"barrier(0.0)" { T, T, P, [7] { "traced" }, 1 }' \
		'"bcast(0.0)" { T, T, P, [7] { "traced" }, 31 }' '"bcast(1.1)" { T, T, P, -21, [0] {' \
		'"reduce(1.1)" { T, T, P, 0 }' '"scatter(0.0)" { T, T, P, [7] { "traced" }, 31 }' \
		'"gather(1.1)" { T, T, P, 0 }' '"lvgroup(1.1)" { T, T, P, 0 }'; do
		grep -qF -- "$want" "$PVM_WORK/deb.norm" ||
			pvm_env_fail "Debian's trace lacks: $want"
	done
	if ! diff "$PVM_WORK/deb.norm" "$PVM_WORK/an2.norm" >&2; then
		pvm_env_fail "the trace differs from Debian's libgpvm3's (< Debian, > an2)"
	fi
	diff <(grep -v '^libgpvm\|^libpvm' "$PVM_WORK/deb/prog.out") \
		<(grep -v '^libgpvm\|^libpvm' "$PVM_WORK/an2/prog.out") >&2 ||
		pvm_env_fail "trace_groups answers differently from Debian's libgpvm3"
	echo "same records in both runs: $(grep -vc '^==' "$PVM_WORK/deb.norm") each"
)
