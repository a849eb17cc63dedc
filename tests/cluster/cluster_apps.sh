#!/usr/bin/env bash
# PVM programs across the hosts of a cluster (scripts/cluster.sh up 3; ctest label hosts), with
# AN2 on: the one-host PVM tests again, their children on other hosts, and the switch's
# counters as the evidence that the messages crossed it:
#   - interop types: xtypes in every pairing of Debian's libpvm3 and libpvm3-an2, echo on h2 or
#     h3, in each encoding: bit-exact, and the same as Debian with Debian;
#   - tasks and notify: tasks_check (children spread over the 3 hosts) prints the same with
#     both libraries;
#   - groups: grp_check with 8 workers spread over the hosts (Debian's pvmgs): barrier, bcast,
#     reduce, scatter/gather;
#   - Debian's unmodified example binaries on the drop-in libpvm3.so.3, their tasks spawned on
#     every host, print what they print on Debian's library;
#   - per-sender order: 3,000 messages from h2, each on a route chosen at random;
#   - a task whose an2d is on no fabric reaches its peer on h2 through the pvmds, and says so once.
# Usage: cluster_apps.sh PVM_TEST_BIN GROUPS_TEST_BIN DROPIN_DIR (ctest passes them).
set -euo pipefail
TESTBIN=$(cd "$1" && pwd) GRPBIN=$(cd "$2" && pwd) DROPIN=$(cd "$3" && pwd)
CLUSTER_TEST=apps
# shellcheck source=/dev/null # the tests' shared harness
source "$(dirname "$0")/cluster_lib.sh"

declare -A CELLS
cells_mark() { local h; for h in h1 h2 h3; do CELLS[$h]=$(cells_from "$h"); done; }
# cells_moved WHAT HOST...: each HOST sent cells over AN2 since cells_mark
cells_moved() {
    local what=$1 h n
    shift
    for h in "$@"; do
        n=$(($(cells_from "$h") - ${CELLS[$h]}))
        ((n > 0)) || fail "$what: no cell from $h crossed the switch"
    done
}

cluster_fresh
ep=$BIN:$TESTBIN:$GRPBIN:/usr/lib/pvm3/lib:/usr/bin
bash "$CL" up 3 --ep "$ep" 2>&1 | timeout 90 cat >"$T/up.out" || fail "up 3: $(cat "$T/up.out")"
remember
ok "cluster of 3 hosts up"
# tasks spawned elsewhere get LSan's suppressions of Debian's libraries (sanitizer builds)
export PVM_EXPORT=LSAN_OPTIONS

# --- interop types ---------------------------------------------------------------------------
cells_mark
# (an2 with an2 on both h2 and h3 in every encoding: a pair whose VC is not up within the first
# message's short wait sends that message through the pvmds, which a loaded machine may cause)
for enc in 0 1 2; do
    for pair in deb:deb an2:an2@h2 an2:an2@h3 an2:deb deb:an2; do
        where=${pair#*@}
        [[ $where == "$pair" ]] && where=h$((2 + enc % 2))
        pair=${pair%@*} master=${pair%%:*} echo=${pair##*:}
        out=$T/xtypes.$pair.$where.$enc
        if ! on h1 -- env PVM_TEST_SPAWN_HOST="$where" timeout 60 "$TESTBIN/xtypes-$master" \
            "xtypes-$echo" "$enc" >"$out" 2>"$out.err"; then
            cat "$out" "$out.err" >&2
            fail "xtypes: master $master on h1, echo $echo on $where, encoding $enc"
        fi
        if ! cmp -s "$T"/xtypes.deb:deb.h?."$enc" "$out"; then
            diff "$T"/xtypes.deb:deb.h?."$enc" "$out" >&2 || :
            fail "xtypes: pairing $pair differs from Debian's in encoding $enc"
        fi
    done
done
cells_moved "xtypes (an2:an2)" h2 h3
ok "interop types: 4 pairings x 3 encodings, echo on h2/h3 (an2 with an2 on both), bit-exact, as Debian's; over AN2 from h2 and h3"

# --- tasks and notify ------------------------------------------------------------------------
cells_mark
for lib in deb an2; do
    on h1 -- timeout 90 "$TESTBIN/tasks_check-$lib" >"$T/tasks.$lib" 2>"$T/tasks.$lib.err" ||
        { cat "$T/tasks.$lib" "$T/tasks.$lib.err" >&2; fail "tasks_check-$lib"; }
done
diff "$T/tasks.deb" "$T/tasks.an2" >&2 || fail "tasks_check: libpvm3-an2 answers differently from Debian's across hosts"
grep -q '^hosts 3 ' "$T/tasks.an2" || fail "tasks_check did not see 3 hosts"
grep -q '^per-sender order kept: 1 all arrived: 1$' "$T/tasks.an2" || fail "tasks_check: order"
grep -q '^exit notification names the child: 1$' "$T/tasks.an2" || fail "tasks_check: PvmTaskExit"
cells_moved "tasks_check" h2 h3
ok "tasks and notify: tasks_check across 3 hosts answers as Debian's; over AN2 from h2 and h3"

# --- groups ----------------------------------------------------------------------------------
cells_mark
on h1 -- timeout 150 "$GRPBIN/grp_check-an2" master 8 gcluster grp_check-an2 >"$T/groups.out" 2>"$T/groups.err" ||
    { cat "$T/groups.out" "$T/groups.err" >&2; fail "grp_check across hosts"; }
[[ $(grep -c ': ok (instance' "$T/groups.out") == 8 ]] || fail "groups: not all 8 workers passed: $(cat "$T/groups.out")"
cells_moved "grp_check" h2 h3
ok "groups: 8 workers on 3 hosts, every group call checked; over AN2 from h2 and h3"

# --- Debian's examples on the drop-in --------------------------------------------------------
# normalised: task ids and numbers (timings, which child answered first) are not compared
normalize() { sed -E 's/t[0-9a-f]{5,}/tX/g; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' | sort; }
dropin_env=(LD_LIBRARY_PATH="$DROPIN")
exports=LD_LIBRARY_PATH:LSAN_OPTIONS
if [[ -n ${AN2_ASAN_RUNTIME:-} ]]; then # the drop-in is sanitized: its runtime first
    dropin_env+=(LD_PRELOAD="$AN2_ASAN_RUNTIME" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0")
    exports+=:LD_PRELOAD:ASAN_OPTIONS
fi
cells_mark
for prog in master1 spmd hello.pvm; do
    on h1 -- timeout 60 "/usr/bin/$prog" >"$T/ex.$prog.deb" 2>&1 || :
    on h1 -- env "${dropin_env[@]}" PVM_EXPORT="$exports" timeout 60 "/usr/bin/$prog" \
        >"$T/ex.$prog.an2" 2>&1 || :
    [[ -s $T/ex.$prog.deb ]] || fail "$prog printed nothing on Debian's library"
    diff <(normalize <"$T/ex.$prog.deb") <(normalize <"$T/ex.$prog.an2") >&2 ||
        fail "$prog on the drop-in prints otherwise than on Debian's library (< Debian, > drop-in)"
done
grep -q 'hello, world from h' "$T/ex.hello.pvm.an2" || fail "hello.pvm: no greeting"
cells_moved "Debian's examples on the drop-in" h2 h3
ok "Debian's master1, spmd and hello.pvm on the drop-in, tasks on every host: output as on Debian's library; over AN2"

# --- per-sender order across a route switch --------------------------------------------------
cells_mark
on h1 -- env PVM_TEST_SPAWN_HOST=h2 timeout 120 "$TESTBIN/fastpath_check" mixed 3000 7 >"$T/mixed.out" 2>"$T/mixed.err" ||
    { cat "$T/mixed.out" "$T/mixed.err" >&2; fail "mixed routes across hosts"; }
grep -q "^mixed: 3000 messages in order, 0 corrupted" "$T/mixed.out" || fail "mixed: $(cat "$T/mixed.out")"
grep -q "^child t8" "$T/mixed.out" || fail "mixed: the sender did not run on h2: $(cat "$T/mixed.out")"
cells_moved "mixed routes" h2
ok "mixed routes: 3,000 messages from h2, route at random per message, all in order and intact"

# --- a host whose an2d is on no fabric -------------------------------------------------------
# the receiver on h1 uses an an2d of its own (started in h1, so that down ends it if we fail)
# that is attached to no switch: its peer on h2 is reached through the pvmds, and it says so once
solo=$S/h1/tmp/solo
mkdir -m 700 "$solo"
on h1 -- env -u AN2_SWITCH "$BIN/an2d" --daemon --socket "$solo/an2d.sock" --idle-exit 30 >"$T/solo.out" 2>&1 ||
    fail "an2d without a switch: $(cat "$T/solo.out")"
cells_mark
on h1 -- env AN2_SOCKET="$solo/an2d.sock" PVM_TEST_SPAWN_HOST=h2 timeout 120 \
    "$TESTBIN/fastpath_check" stream 300 60000 >"$T/solo.out" 2>"$T/solo.err" ||
    { cat "$T/solo.out" "$T/solo.err" >&2; fail "a receiver whose an2d is on no fabric"; }
on h1 -- "$BIN/an2d" --stop --socket "$solo/an2d.sock" >/dev/null 2>&1 || :
rm -rf "$solo"
grep -q "^stream: 300 of 300 messages, 0 corrupted, 0 out of order, 0 receive errors" "$T/solo.out" ||
    fail "no fabric: $(cat "$T/solo.out")"
[[ $(grep -c "is not attached to an AN2 switch" "$T/solo.err") == 1 ]] ||
    fail "the receiver did not say once that its an2d is on no fabric: $(cat "$T/solo.err")"
n=$(($(cells_from h2) - ${CELLS[h2]}))
((n < 100)) || fail "no fabric: $n cells from h2 crossed the switch"
ok "a receiver whose an2d is on no fabric: 300 messages from h2 through the pvmds, said once"

cluster_finish cluster_apps
