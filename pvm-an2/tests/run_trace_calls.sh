#!/usr/bin/env bash
# pvm_trace_calls: trace_calls (archcode, mstat, the mailbox, packf, getminfo/setminfo, a
# message handler of its own, reg_tasker and reg_hoster, addhosts, delhosts, start_pvmd; perror,
# which stock does not trace; its first call pvm_initsend, which joins it) traced by
# Debian's tracer gives the same records on Debian's libpvm3, on libpvm3-an2 and on the
# drop-in (an2run), normalised as in pvm_trace_compare (trace_normalize.py), and the same
# answers.
# Usage: run_trace_calls.sh TESTBINDIR BUILDDIR
set -euo pipefail
bindir=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
(
	source "$here/pvmd_env.sh"
	source "$here/trace_env.sh"
	TRACE_NORMALIZE=$here/trace_normalize.py
	pvm_env_start "$bindir"
	TRACE_WORK=$PVM_WORK TRACE_PROG=$PVM_WORK/trace_calls TRACE_WANT="delmhf: 0"
	TRACE_MASK="initsend pkint upkint archcode mstat putinfo getinfo delinfo getmboxinfo packf getminfo setminfo addmhf delmhf mhf_invoke setsbuf setrbuf setcontext freebuf reg_tasker reg_hoster addhosts delhosts start_pvmd perror"
	TRACE_HANDLERS=21=upkint   # (its handler of tag 21 unpacks an int)
	trace_run deb "$bindir/trace_calls-deb"
	trace_run an2 "$bindir/trace_calls-an2"
	trace_run dropin "$bindir/trace_calls-deb" "$build/bin/an2run"
	# what the comparison rests on: the calls are there, with their data
	for want in '"initsend(0.0)" { T, T, P, 0 }' '"archcode(0.0)" { T, T, P, [7] { "NOSUCH" } }' \
		'"archcode(1.1)" { T, T, P, -32 }' '"mstat(0.0)" { T, T, P, [11] { "nosuchhost" } }' \
		'"mstat(1.1)" { T, T, P, -6 }' '"putinfo(0.0)" { T, T, P, [12] { "trace_calls" }, -1, 0, B }' \
		'"getinfo(1.1)" { T, T, P, 0, B }' '"getmboxinfo(0.0)" { T, T, P, [12] { "trace_calls" } }' \
		'"delinfo(1.1)" { T, T, P, -32 }' '"packf(0.0)" { T, T, P, [9] { "%+ %d %s" } }' \
		'"getminfo(0.0)" { T, T, P, B }' '"setminfo(1.1)" { T, T, P, 0 }' \
		'"addmhf(0.0)" { T, T, P, P, 21, -1 }' \
		'"mhf_invoke(0.0)" { T, T, P, P, 21, -1, B, 4, 21, 0, P }' '"delmhf(1.1)" { T, T, P, 0 }' \
		'"setrbuf(0.0)" { T, T, P, B }' '"reg_tasker(0.0)" { T, T, P }' '"reg_hoster(1.1)" { T, T, P, 0 }' \
		'"delhosts(0.0)" { T, T, P, [1] [11] { "nosuchhost" } }' '"start_pvmd(1.1)" { T, T, P, -28 }'; do
		grep -qF -- "$want" "$PVM_WORK/deb.norm" ||
			pvm_env_fail "Debian's trace lacks: $want"
	done
	for name in an2 dropin; do
		if ! diff "$PVM_WORK/deb.norm" "$PVM_WORK/$name.norm" >&2; then
			pvm_env_fail "$name: the trace differs from Debian's libpvm3's (< Debian, > $name)"
		fi
		diff <(grep -v '^libpvm' "$PVM_WORK/deb/prog.out") <(grep -v '^libpvm' "$PVM_WORK/$name/prog.out") >&2 ||
			pvm_env_fail "$name: trace_calls answers differently from Debian's libpvm3"
	done
	echo "same records in all three runs: $(grep -vc '^==' "$PVM_WORK/deb.norm") each"
)
