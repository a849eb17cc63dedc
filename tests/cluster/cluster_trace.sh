#!/usr/bin/env bash
# Tracing across hosts (scripts/cluster.sh up 2; ctest labels hosts and trace): trace_prog on
# h1 spawns its two children on h2, Debian's tracer runs on h1, and the normalised records
# (trace_normalize.py) are the same on Debian's libpvm3, on libpvm3-an2 and on the drop-in
# (an2run); on ours the parent's messages to the children crossed the switch (AN2 VCs: h1's
# and h2's ports took cells in).
# Usage: cluster_trace.sh PVM_TEST_BIN (ctest passes it). Root only, else 77.
set -euo pipefail
TESTBIN=$(cd "$1" && pwd)
CLUSTER_TEST=trace
# shellcheck source=/dev/null # the tests' shared harness
source "$(dirname "$0")/cluster_lib.sh"
# shellcheck source=/dev/null # the tracer helper of the one-host trace tests
source "$SRC/pvm-an2/tests/trace_env.sh"
pvm_env_fail() { fail "$@"; }   # (trace_env.sh's name for it)

cluster_fresh
bash "$CL" up 2 --ep "$BIN:$TESTBIN:/usr/lib/pvm3/lib:/usr/bin" 2>&1 | timeout 90 cat >"$T/up.out" ||
    fail "up 2: $(cat "$T/up.out")"
remember
ok "cluster of 2 hosts up"
export PVM_EXPORT=LSAN_OPTIONS   # (sanitizer builds: the suppressions, for the tasks on h2)

# Debian's tracer on h1 (tracer_start runs $TRACER_CMD where the trace goes, stdbuf around it)
cat >"$T/tracer-h1" <<EOF
#!/bin/sh
exec bash '$CL' exec h1 -- tracer "\$@"
EOF
chmod +x "$T/tracer-h1"
TRACER_CMD=$T/tracer-h1
TRACE_WORK=$T TRACE_PROG=$T/trace_prog TRACE_ARGS=h2 TRACE_WANT="trace_prog: total 42"
TRACE_MASK="initsend pkint pkstr pkdouble upkint upkstr upkdouble config pstat notify getopt setopt siblings mhf_invoke"
TRACE_NORMALIZE=$SRC/pvm-an2/tests/trace_normalize.py
ON_H1=(bash "$CL" exec h1 --)   # (the traced program runs on h1)

trace_run deb "$TESTBIN/trace_prog-deb" "${ON_H1[@]}"
# what the comparison rests on: the children ran on h2 (their tids' host part: 0x80000),
# and their records are there
grep -Eq '^"spawn\(1\.1\)" \{ T, T, P, 2, \[2\] \{ C1, C2 \} \}$' "$T/deb.norm" ||
    fail "Debian's trace has no spawn of two children: $(cat "$T/deb.norm")"
for c in C1 C2; do
    grep -q "^== $c\$" "$T/deb.norm" || fail "Debian's trace has no records of $c"
done
tids=$(grep -o '"newtask(0)" { [0-9]*, [0-9]*, [0-9]*' "$T/deb/trace.trf" | awk -F', ' '{print $3}')
[[ $(for t in $tids; do echo $(((t >> 18) & 0xfff)); done | sort | uniq -c | awk '{print $1 "x" $2}' |
    tr '\n' ' ') == "1x1 2x2 " ]] || fail "not one task on h1 and two on h2: tids $tids"
grep -q '"recv(1.1)" { T, T, C2, B, 20, 12, 0, P }' "$T/deb.norm" || fail "Debian's trace lacks C2's recv of the mcast"

cells_h1=$(cells_from h1) cells_h2=$(cells_from h2)
trace_run an2 "$TESTBIN/trace_prog-an2" "${ON_H1[@]}"
(($(cells_from h1) > cells_h1 && $(cells_from h2) > cells_h2)) ||
    fail "libpvm3-an2: no cells crossed the switch from h1 and h2 (the messages did not go over AN2)"
trace_run dropin "$TESTBIN/trace_prog-deb" "${ON_H1[@]}" "$BIN/an2run"
for name in an2 dropin; do
    diff "$T/deb.norm" "$T/$name.norm" >&2 ||
        fail "$name: the trace across hosts differs from Debian's libpvm3's (< Debian, > $name)"
done
ok "same records traced across hosts in 3 runs: $(grep -vc '^==' "$T/deb.norm") each; over AN2 on ours"

cluster_finish cluster_trace
