#!/usr/bin/env bash
# Bit errors across hosts (scripts/cluster.sh up 2 --in-session --ber 1e-6; ctest label hosts):
# the cluster's an2ds and switch stay in our session, the switch flips payload bits of the cells
# it receives on every link, and a stream of 400 numbered, patterned messages of 60,000 bytes
# from a task on h2 to its parent on h1 must still arrive whole: all of them, once, in order,
# intact, no receive error, with retransmissions counted in the sender's log and no fall-back
# to the daemon route.
# Usage: cluster_ber.sh PVM_TEST_BIN GROUPS_TEST_BIN DROPIN_DIR (ctest passes them).
set -euo pipefail
TESTBIN=$(cd "$1" && pwd)
CLUSTER_TEST=ber
# shellcheck source=/dev/null # the tests' shared harness
source "$(dirname "$0")/cluster_lib.sh"

cluster_fresh
# --in-session, as the benchmarks run it: the cluster's processes stay in our session
bash "$CL" up 2 --in-session --ber 1e-6 --ep "$BIN:$TESTBIN:/usr/lib/pvm3/lib:/usr/bin" 2>&1 |
    timeout 90 cat >"$T/up.out" || fail "up 2 --in-session --ber 1e-6: $(cat "$T/up.out")"
remember
ours=$(ps -o sid= -p $$ | tr -d ' ') seen=0
for pid in $(cat "$S"/h*/tmp/an2d.pid) $(pgrep -f "an2switch .*--control $S/" || :); do
    sid=$(ps -o sid= -p "$pid" | tr -d ' ')
    [[ $sid == "$ours" ]] || fail "--in-session: process $pid is in session ${sid:-?}, not ours ($ours)"
    seen=$((seen + 1))
done
((seen == 3)) || fail "--in-session: found $seen of the 2 an2ds and the an2switch"
ok "cluster of 2 hosts up in our session, its switch flipping bits at 1e-6"
export PVM_EXPORT=LSAN_OPTIONS

base=$(cells_from h2)
on h1 -- env PVM_TEST_SPAWN_HOST=h2 timeout 200 "$TESTBIN/fastpath_check" stream 400 60000 \
    >"$T/stream.out" 2>"$T/stream.err" || fail "the stream failed: $(cat "$T/stream.out" "$T/stream.err")"
cat "$T/stream.out"
grep -q "^stream: 400 of 400 messages, 0 corrupted, 0 out of order, 0 receive errors" "$T/stream.out" ||
    fail "messages lost, damaged, misordered or reported lost"
(($(cells_from h2) > base + 400 * 1250)) || fail "the stream did not cross the switch over AN2"
grep -aEo "VC [0-9.]+ with t[0-9a-f]+: sent .*" "$S"/h1/tmp/pvml.* || :
grep -aEq "with t[0-9a-f]+: sent [0-9]+ PDUs, resent [1-9]" "$S"/h1/tmp/pvml.* ||
    fail "the sender counted no retransmission"
grep -aq "back to the daemon route" "$S"/h1/tmp/pvml.* "$T/stream.err" &&
    fail "the pair fell back to the daemon route"
ok "400 messages of 60,000 bytes from h2 under bit errors at 1e-6: all there, repaired by retransmission"
cluster_finish cluster_ber
