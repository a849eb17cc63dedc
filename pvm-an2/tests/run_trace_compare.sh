#!/usr/bin/env bash
# pvm_trace_compare: trace_prog traced by Debian's tracer gives the same records on Debian's
# libpvm3, on libpvm3-an2 and on the drop-in (an2run), and with the tracer itself on the
# drop-in: times, task ids, buffer ids and data addresses replaced by placeholders
# (trace_normalize.py), each task's records in order, the same data. The mask is the tracer's
# default (XPVM's: mytid, parent, spawn, send, mcast, recv, psend, precv, exit ...) and every
# other call the program makes: initsend, the pack and unpack calls, config, pstat, notify,
# getopt, setopt, siblings, and mhf_invoke (the children's TC_SIBLINGS handler, with its
# unpacks).
# Usage: run_trace_compare.sh TESTBINDIR BUILDDIR
set -euo pipefail
bindir=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
(
	source "$here/pvmd_env.sh"
	source "$here/trace_env.sh"
	TRACE_NORMALIZE=$here/trace_normalize.py
	pvm_env_start "$bindir"
	TRACE_WORK=$PVM_WORK TRACE_PROG=$PVM_WORK/trace_prog TRACE_WANT="trace_prog: total 42"
	TRACE_MASK="initsend pkint pkstr pkdouble upkint upkstr upkdouble config pstat notify getopt setopt siblings mhf_invoke"
	trace_run deb "$bindir/trace_prog-deb"
	trace_run an2 "$bindir/trace_prog-an2"
	trace_run dropin "$bindir/trace_prog-deb" "$build/bin/an2run"
	# (sanitizer build: the instrumented drop-in needs its runtime preloaded into the tracer)
	TRACER_ENV="LD_LIBRARY_PATH=$build/lib/dropin${AN2_ASAN_RUNTIME:+ LD_PRELOAD=$AN2_ASAN_RUNTIME}" \
		trace_run tracer-on-dropin "$bindir/trace_prog-an2"
	# what the comparison rests on: each task's calls are there, with their data
	for want in '"spawn(1.1)" { T, T, P, 2, [2] { C1, C2 } }' \
		'"mcast(0.0)" { T, T, P, 20, 12, 0, [2] { C1, C2 } }' \
		'"recv(1.1)" { T, T, C2, B, 20, 12, 0, P }' '"pkint(1.1)" { T, T, P, 0 }' \
		'"upkdouble(0.0)" { T, T, P,' '"exit(0.0)" { T, T, C1 }' '"endtask(0)" { T, T, C2,' \
		'"siblings(1.1)" { T, T, C2, [2] { C1, C2 } }' '"precv(1.1)" { T, T, P, 0, 4, 14, 0, C2 }' \
		'"notify(0.0)" { T, T, P, 1, 15, [2] { C1, C2 } }' '"config(1.1)" { T, T, P, 1, 1, 0 }' \
		'"pstat(0.0)" { T, T, P, C1 }' \
		'"mhf_invoke(0.0)" { T, T, C2, -1, -2147287028, 524287, B, 12, -2147287028, 524287, P }'; do
		grep -qF -- "$want" "$PVM_WORK/deb.norm" ||
			pvm_env_fail "Debian's trace lacks: $want"
	done
	for name in an2 dropin tracer-on-dropin; do
		if ! diff "$PVM_WORK/deb.norm" "$PVM_WORK/$name.norm" >&2; then
			pvm_env_fail "$name: the trace differs from Debian's libpvm3's (< Debian, > $name)"
		fi
	done
	echo "same records in all four runs: $(grep -vc '^==' "$PVM_WORK/deb.norm") each"
)
