#!/usr/bin/env bash
# Every pairing of Debian's libpvm3 and libpvm3-an2 exchanges all pack types in each
# encoding; the results must be right and identical to the Debian-Debian pairing.
# Usage: run_xtypes.sh <dir with xtypes-an2 and xtypes-deb>
set -euo pipefail
bindir=$(cd "$1" && pwd)
source "$(dirname "$0")/pvmd_env.sh"
pvm_env_start "$bindir"
out=$PVM_WORK
for enc in 0 1 2; do
	for pair in deb:deb an2:an2 an2:deb deb:an2; do
		master=${pair%%:*} echo=${pair##*:}
		if ! timeout 60 "$bindir/xtypes-$master" "xtypes-$echo" "$enc" >"$out/$pair.$enc" 2>"$out/$pair.$enc.err"; then
			cat "$out/$pair.$enc" "$out/$pair.$enc.err" >&2
			pvm_env_fail "master $master, echo $echo, encoding $enc"
		fi
		if ! cmp -s "$out/deb:deb.$enc" "$out/$pair.$enc"; then
			diff "$out/deb:deb.$enc" "$out/$pair.$enc" >&2 || true
			pvm_env_fail "pairing $pair differs from Debian's behaviour in encoding $enc"
		fi
		echo "ok: master $master, echo $echo, encoding $enc"
	done
done
# Debian's tasks asked ours for direct routes (PvmRouteDirect) and were refused cleanly:
# the an2 master logs it on stderr, an an2 echo in the pvmd's log of task output
grep -q 'refused a direct route' "$out"/an2:deb.*.err \
	|| pvm_env_fail "the an2 master saw no direct-route request from Debian's echo"
grep -q 'refused a direct route' "$PVM_TMP"/pvml.* \
	|| pvm_env_fail "no an2 echo saw a direct-route request from Debian's master"
echo "ok: direct-route requests from Debian's library refused, traffic kept flowing"
