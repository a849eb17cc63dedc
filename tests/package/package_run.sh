#!/usr/bin/env bash
# package_run: the package's contents unpacked into a temporary root (dpkg-deb -x) run
# Debian's unmodified master1 (it spawns slave1 tasks through pvmd) on the drop-in through
# that root's an2run, with the root's an2d carrying the messages over AN2; an2run --check
# gives each reason the fast path would not be used; `man -l` renders every page cleanly.
set -euo pipefail
if [ "${AN2_SANITIZE:-OFF}" = ON ]; then
	echo "skipped in a sanitizer build: the package is a plain build that scripts/package.sh" \
		"makes in a tree of its own, the same as in the plain build dir, which tests it"
	exit 77
fi
deb=$(ls "$AN2_PACKAGE_DIR"/pvm-an2_*.deb) || { echo "FAIL: no package (package_build)" >&2; exit 1; }
source "$AN2_SOURCE_DIR/pvm-an2/tests/pvmd_env.sh"
pvm_env_start /usr/bin   # Debian's example binaries (slave1)
root=$PVM_WORK/root      # (pvmd_env.sh removes PVM_WORK at exit)
mkdir "$root"
dpkg-deb -x "$deb" "$root"
an2run=$root/usr/bin/an2run an2stat=$root/usr/bin/an2stat
cd "$PVM_WORK"

# expect_check <status> <text> [env...] -- [program]: an2run --check's status and a line of it
expect_check() {
	local want=$1 text=$2 rc=0; shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$an2run" --check "$@" > check.out 2>&1 || rc=$?
	cat check.out
	[ "$rc" = "$want" ] || pvm_env_fail "an2run --check $* (${envs[*]}): status $rc, not $want"
	grep -qF -- "$text" check.out || pvm_env_fail "an2run --check $* (${envs[*]}) did not say: $text"
}

# before any task: pvmd and the an2d the first task will start (the root's)
expect_check 0 "the first task starts $root/usr/sbin/an2d" PVM_NOTHING= -- master1
grep -qF "libpvm3.so.3 is the drop-in ($root/usr/lib/" check.out || pvm_env_fail "master1 not on the drop-in"

# Debian's master1 and its slave1 tasks, unmodified, on the drop-in
rc=0
timeout 60 "$an2run" master1 > master1.out 2>&1 || rc=$?
cat master1.out
[ "$rc" -eq 0 ] || pvm_env_fail "an2run master1: status $rc"
grep -q "I got" master1.out || pvm_env_fail "master1 got no results from its slaves"
# evidence: the an2d that serves this setup is the root's, and cells crossed its switch
stat=$("$an2stat" -p) || pvm_env_fail "no an2d answers after master1"
echo "$stat"
an2d_pid=$(sed -nE '1s/^an2d pid ([0-9]+).*/\1/p' <<< "$stat")
[ "$(readlink "/proc/$an2d_pid/exe")" = "$root/usr/sbin/an2d" ] ||
	pvm_env_fail "an2d $an2d_pid is $(readlink "/proc/$an2d_pid/exe"), not the package's"
cells=$(awk '/^PORT +CELLS_IN/ { t = 1; next } t && /^[0-9]/ { s += $2 } /^$/ { t = 0 } END { print s + 0 }' <<< "$stat")
echo "cells into the switch: $cells"
[ "$cells" -gt 0 ] || pvm_env_fail "no cell crossed the switch: master1 and slave1 did not use AN2"

# what --check says while that an2d runs, and for each reason the fast path is not used
expect_check 0 "fast path: yes" PVM_NOTHING= -- master1
expect_check 1 "AN2 is off (PVM_AN2=off)" PVM_AN2=off -- master1
expect_check 1 "pvmd missing: none runs" PVM_VMID=none$$ AN2_SOCKET="$PVM_WORK/none.sock" -- master1
expect_check 1 "no an2d: none answers at $PVM_WORK/none.sock and tasks may not start one" \
	AN2_SOCKET="$PVM_WORK/none.sock" AN2_NO_AUTOSTART=1 --
expect_check 1 "no an2d: none answers at $PVM_WORK/none.sock and /nonexistent/an2d is missing" \
	AN2_SOCKET="$PVM_WORK/none.sock" AN2D_PATH=/nonexistent/an2d --
expect_check 1 "a stock-linked peer: $AN2_STOCK_PEER loads" PVM_NOTHING= -- "$AN2_STOCK_PEER"
# a stock-linked task running in this virtual machine
"$AN2_STOCK_PEER" > peer.out 2>&1 &
peer=$!
for i in $(seq 100); do grep -q joined peer.out && break; sleep 0.1; done
grep -q joined peer.out || pvm_env_fail "the stock peer did not join: $(cat peer.out)"
expect_check 0 "pid $peer (package-stock-peer) on Debian's libpvm3" PVM_NOTHING= --
grep -qF "stock-linked task(s) above go through the pvmds" check.out || pvm_env_fail "no word on the stock peer"
kill "$peer"
wait "$peer" 2>/dev/null || true
# refused: pvmd and Debian's console never get the drop-in
for prog in pvmd pvm; do
	rc=0
	"$an2run" "$prog" > refused.out 2>&1 < /dev/null || rc=$?
	[ "$rc" -eq 2 ] && grep -q "without an2run" refused.out || pvm_env_fail "an2run $prog: status $rc: $(cat refused.out)"
done

# every man page renders, without a warning from man or groff
pages=("$root"/usr/share/man/man*/*)
[ ${#pages[@]} -eq 6 ] || pvm_env_fail "expected 6 man pages, found ${#pages[@]}"
for page in "${pages[@]}"; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" > page.txt 2> page.err ||
		pvm_env_fail "man -l $page failed: $(cat page.err)"
	[ ! -s page.err ] || pvm_env_fail "man -l $page warned: $(cat page.err)"
	grep -q '^NAME' page.txt && grep -q '^SEE ALSO' page.txt || pvm_env_fail "$page renders no NAME/SEE ALSO"
	echo "man -l $(basename "$page"): $(wc -l < page.txt) lines"
done
echo "package run: master1 over AN2 through an2run, --check's reasons, $(echo ${#pages[@]}) man pages"
