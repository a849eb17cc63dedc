#!/usr/bin/env bash
# Debian's simple resource manager /usr/bin/srm.pvm (pvm_reg_rm, SM_* messages), on Debian's
# libpvm3 and unmodified on the drop-in: master1, rebuilt against each library, spawns its
# workers through it (SM_SPAWN to the resource manager, SM_EXEC to the pvmd, SM_TASKX back).
#   run_srm.sh <build/examples> <build/lib/dropin>
set -euo pipefail
ex=$(cd "$1" && pwd) dropin=$(cd "$2" && pwd)
helper=${AN2_SOURCE_DIR:-$(dirname "$0")/..}/pvm-an2/tests/pvmd_env.sh
status=0
for rmlib in deb dropin; do
	(
		source "$helper"
		PVM_ENV_STOCK_SOCKETS=1
		PVM_ENV_LIMIT=60
		pvm_env_start "$ex/an2"
		extra=()
		if [ "$rmlib" = dropin ]; then
			extra=(LD_LIBRARY_PATH="$dropin")
			# sanitizer build: the unmodified binary needs the ASan runtime loaded first
			[ -n "${AN2_ASAN_RUNTIME:-}" ] && extra+=(LD_PRELOAD="$AN2_ASAN_RUNTIME" ASAN_OPTIONS=detect_leaks=0)
		fi
		env "${extra[@]}" stdbuf -oL /usr/bin/srm.pvm > "$PVM_WORK/srm.out" 2>&1 &
		for i in $(seq 300); do
			grep -q "registered as Resource Manager" "$PVM_WORK/srm.out" && break
			sleep 0.1
		done
		grep -q "registered as Resource Manager" "$PVM_WORK/srm.out" \
			|| { cat "$PVM_WORK/srm.out" >&2; pvm_env_fail "srm on $rmlib did not register within 30 s"; }
		for lib in an2 deb; do
			timeout 30 "$ex/$lib/master1" > "$PVM_WORK/m-$lib" 2>&1 \
				|| { cat "$PVM_WORK/m-$lib" "$PVM_WORK/srm.out" >&2; pvm_env_fail "srm on $rmlib: master1-$lib failed"; }
			grep -q SUCCESSFUL "$PVM_WORK/m-$lib" || pvm_env_fail "srm on $rmlib: master1-$lib did not spawn"
			[ "$(grep -c '^I got .*expecting' "$PVM_WORK/m-$lib")" -eq 3 ] \
				|| pvm_env_fail "srm on $rmlib: master1-$lib lacks its 3 results"
		done
		n=$(grep -c 'PVMd message is SM_SPAWN from' "$PVM_WORK/srm.out" || true)
		[ "$n" -eq 2 ] || { cat "$PVM_WORK/srm.out" >&2; pvm_env_fail "srm on $rmlib saw $n spawn requests, expected 2"; }
		n=$(grep -c 'PVMd message is SM_TASKX from' "$PVM_WORK/srm.out" || true)
		echo "ok: srm.pvm on $rmlib scheduled both master1s ($n task exits reported to it)"
	) || status=1
done
exit $status
