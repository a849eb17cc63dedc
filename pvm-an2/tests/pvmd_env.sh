# Shared helper for the pvm tests: an isolated pvmd per test, stopped and checked on exit.
# Usage (bash):  source pvmd_env.sh; pvm_env_start "<ep dirs separated by :>"; ...; exit
#   Sets PVM_TMP (fresh dir), PVM_VMID (unique), PVM_ROOT, PVM_ALLOW_ROOT; exports them;
#   PVM_WORK is a scratch dir for the test's own files; PVMD_PID the pvmd.
#   An EXIT trap halts the pvmd, kills whatever still runs under our PVM_VMID, removes the
#   temp dir, and fails the test if a process or file had been left behind (a test that kills
#   its an2d sets PVM_ENV_AN2D_KILLED=1 first: the socket directory it leaves is expected).

pvm_env_fail() { echo "FAIL: $*" >&2; exit 1; }

# PIDs of processes that run with our PVM_VMID in their environment (pvmd and its tasks).
pvm_env_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		[ "${p#/proc/}" = "${BASHPID:-}" ] && continue
		if tr '\0' '\n' 2>/dev/null < "$p/environ" | grep -x "PVM_VMID=$PVM_VMID" >/dev/null; then
			echo "${p#/proc/}"
		fi
	done
}

# Stops the pvmd: TERM (it kills its tasks and removes its files), KILL after 5 s; returns
# its exit status.
pvm_env_stop_pvmd() {
	local n
	if kill -TERM "$PVMD_PID" 2>/dev/null; then
		for n in $(seq 50); do kill -0 "$PVMD_PID" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$PVMD_PID" 2>/dev/null && kill -KILL "$PVMD_PID" 2>/dev/null
	fi
	wait "$PVMD_PID" 2>/dev/null
}

pvm_env_stop() {
	local status=$? leftovers="" pids
	trap - EXIT TERM
	set +e
	if [ -n "${PVM_ENV_WATCHDOG:-}" ]; then   # its TERM trap ends its sleep, then itself
		kill "$PVM_ENV_WATCHDOG" 2>/dev/null
		wait "$PVM_ENV_WATCHDOG" 2>/dev/null
	fi
	local pvmd_status=""
	if [ -n "${PVMD_PID:-}" ]; then pvm_env_stop_pvmd; pvmd_status=$?; fi
	# the an2d that our fast-path tasks started (socket under our PVM_TMP and PVM_VMID)
	# (PVM_ENV_AN2STAT=FILE: its switch port counters are appended to FILE first)
	if ls "$PVM_TMP"/an2d.*/an2d.sock >/dev/null 2>&1; then
		[ -n "${PVM_ENV_AN2STAT:-}" ] && "${AN2_BUILD_DIR:-.}/bin/an2stat" -p >> "$PVM_ENV_AN2STAT" 2>&1
		"${AN2_BUILD_DIR:-.}/bin/an2d" --stop >/dev/null 2>&1
	fi
	pids=$(pvm_env_pids)
	if [ -n "$pids" ] && [ "${PVM_ENV_EXPECT_LEFTOVERS:-0}" != 1 ]; then
		leftovers="processes left running: $(echo $pids)"
	fi
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	# an an2d that the test killed on purpose (PVM_ENV_AN2D_KILLED=1, set before the kill)
	# leaves its socket directory for the next an2d to take over: the test's to remove
	[ "${PVM_ENV_AN2D_KILLED:-0}" = 1 ] && rm -rf "$PVM_TMP"/an2d.*
	# pvmtmp<pid>.<n> sockets are Debian's alone (its pvmd's, the pvmd' it forks to add
	# hosts, its libpvm3's direct routes; libpvm3-an2 makes none): once in many runs under
	# load, or when pvm_halt ends them, they stay. Said here with the pvmd's exit status and
	# log, not counted against the library.
	if [ "${PVM_ENV_STOCK_SOCKETS:-0}" != 1 ] && ls "$PVM_TMP"/pvmtmp* >/dev/null 2>&1; then
		echo "note: Debian's PVM left $(cd "$PVM_TMP" && echo pvmtmp*) (pvmd $PVMD_PID, exit" \
			"status $pvmd_status); the pvmd's log ends:" >&2
		tail -n 5 "$PVM_TMP"/pvml.*."$PVM_VMID" >&2 2>/dev/null
		rm -f "$PVM_TMP"/pvmtmp*
	fi
	# the pvmd's own files and ours; anything else is a leak
	rm -f "$PVM_TMP"/pvmd.*."$PVM_VMID" "$PVM_TMP"/pvml.*."$PVM_VMID" "$PVM_TMP/hostfile" \
	      "$PVM_TMP/pvmd.out"
	rm -rf "$PVM_WORK"
	# Debian's libpvm3 leaves its direct-route sockets (pvmtmp<pid>.<n>) behind; a test that
	# runs stock tasks with PvmRouteDirect says so, ours never create any
	[ "${PVM_ENV_STOCK_SOCKETS:-0}" = 1 ] && rm -f "$PVM_TMP"/pvmtmp*
	if [ -n "$(ls -A "$PVM_TMP" 2>/dev/null)" ]; then
		leftovers="$leftovers files left in PVM_TMP: $(ls -A "$PVM_TMP" | tr '\n' ' ')"
	fi
	rm -rf "$PVM_TMP"
	if [ -n "$leftovers" ]; then
		echo "FAIL: $leftovers" >&2
		[ "$status" -eq 0 ] && status=1
	fi
	exit "$status"
}

pvm_env_start() {
	local ep=$1 base=${AN2_BUILD_DIR:-${TMPDIR:-/tmp}}/test-tmp n
	mkdir -p "$base"
	PVM_TMP=$(mktemp -d "$base/pvm.XXXXXX")
	PVM_VMID="an2t$$x$RANDOM"
	PVM_ROOT=/usr/lib/pvm3
	PVM_ALLOW_ROOT=1
	export PVM_TMP PVM_VMID PVM_ROOT PVM_ALLOW_ROOT
	unset PVMSOCK PVM_EXPORT LD_PRELOAD
	PVM_WORK=$PVM_TMP/work   # the test's own scratch files; removed without complaint
	mkdir "$PVM_WORK"
	trap pvm_env_stop EXIT
	trap 'exit 143' TERM
	# A test that hangs is failed and cleaned up here, before ctest's timeout would kill it
	# without running this trap: after PVM_ENV_LIMIT seconds (default 100) the watchdog kills
	# our tasks (which unblocks the script) and then the script.
	local limit=${PVM_ENV_LIMIT:-100} script=$BASHPID   # (the subshell, if we run in one)
	(
		# Told to stop (TERM), it ends its sleep and goes quietly; only a sleep that ran
		# its full length fails the test. (wait, unlike a foreground sleep, lets the trap run.)
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		env -u PVM_VMID sleep "$limit" &
		nap=$!
		wait "$nap" || exit 0
		echo "FAIL: test still running after ${limit}s" >&2
		kill -TERM "$script" 2>/dev/null
		for n in $(pvm_env_pids); do [ "$n" != "$script" ] && kill -KILL "$n" 2>/dev/null; done
	) &
	PVM_ENV_WATCHDOG=$!
	echo "* ep=$ep" > "$PVM_TMP/hostfile"
	# the pvmd must run on Debian's libpvm3: keep our library paths away from it
	env -u LD_LIBRARY_PATH -u LD_PRELOAD pvmd "$PVM_TMP/hostfile" </dev/null >"$PVM_TMP/pvmd.out" 2>&1 &
	PVMD_PID=$!
	for n in $(seq 100); do
		[ -s "$PVM_TMP/pvmd.$(id -u).$PVM_VMID" ] && return 0
		kill -0 "$PVMD_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$PVM_TMP/pvmd.out" >&2
	pvm_env_fail "pvmd did not start"
}
