#!/usr/bin/env bash
# pvm_trace_live: tracing changed while a task runs. Debian's tracer (its default mask but
# pvm_psend and pvm_probe) traces
# trace_live_ctl, which spawns trace_phases and changes its tracing between phases with
# TC_SETTMASK (pvm_pkint added), then TC_SETTRCBUF and TC_SETTRCOPT (counting). trace_phases
# on Debian's libpvm3 and on ours: the same normalised trace, in which pvm_pkint appears from
# the second phase on and the third phase is counted, not recorded.
# Usage: run_trace_live.sh TESTBINDIR
set -euo pipefail
bindir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
(
	source "$here/pvmd_env.sh"
	source "$here/trace_env.sh"
	pvm_env_start "$bindir"
	prog=$PVM_WORK/trace_phases   # one path in both runs: spawn's records name it
	for lib in deb an2; do
		cp "$bindir/trace_phases-$lib" "$prog"
		tracer_start "$PVM_WORK/$lib"
		tracer_say "trace - psend probe"   # (trace_phases waits with them, untraced)
		timeout 60 "$bindir/trace_live_ctl" "$prog" > "$PVM_WORK/$lib/ctl.out" 2>&1 ||
			pvm_env_fail "$lib: trace_live_ctl failed: $(cat "$PVM_WORK/$lib/ctl.out")"
		tracer_stop
		python3 "$here/trace_normalize.py" "$PVM_WORK/$lib/trace.trf" > "$PVM_WORK/$lib.norm"
	done
	diff "$PVM_WORK/deb.norm" "$PVM_WORK/an2.norm" >&2 ||
		pvm_env_fail "our trace differs from Debian's (< Debian, > ours)"
	# the child's own records: pvm_pkint only in phase 2, phase 3 only in the count
	sed -n '/^== C1$/,/^== /p' "$PVM_WORK/an2.norm" | grep -v '^==' | grep -v 'output(0)\|task(0)' |
		cut -d'{' -f1 > "$PVM_WORK/child"
	printf '%s\n' '"mytid(0.0)" ' '"mytid(1.1)" ' '"parent(0.0)" ' '"parent(1.1)" ' \
		'"send(0.0)" ' '"send(1.1)" ' '"recv(0.0)" ' '"recv(1.1)" ' \
		'"pkint(0.0)" ' '"pkint(1.1)" ' '"send(0.0)" ' '"send(1.1)" ' \
		'"profiling(0)" ' > "$PVM_WORK/want"
	diff "$PVM_WORK/want" "$PVM_WORK/child" >&2 ||
		pvm_env_fail "the child's records are not what the changes ask for (< wanted, > got)"
	cat "$PVM_WORK/an2.norm"
)
