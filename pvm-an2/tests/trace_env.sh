# Shared helper of the trace tests (bash, after pvmd_env.sh's pvm_env_start): Debian's tracer
# run under the test's pvmd with commands on a pipe, and the traced program run to the end.
#   tracer_start DIR [tracer args]   starts the tracer in DIR (trace file DIR/trace.trf, its
#                                    screen DIR/screen), returns at its prompt
#   tracer_say TEXT                  sends one command line (echoed to its screen)
#   tracer_wait_for TEXT             waits until the screen shows TEXT (tracer's own limit)
#   tracer_stop                      waits for "Trace File Complete", quits, waits for exit
# (stdbuf: its screen is a file, which it would not flush until it quits.)
#   trace_run NAME BINARY [wrapper...]
#                                    one traced run of BINARY (copied to $TRACE_PROG: one path
#                                    in every run, spawn's records name it) with the events
#                                    $TRACE_MASK added to the tracer's default, its output
#                                    checked for $TRACE_WANT, the pvmd's log for a sanitizer
#                                    report from a spawned task; the trace normalised
#                                    ($TRACE_NORMALIZE, given $TRACE_HANDLERS: the calls of
#                                    the program's handlers) into $TRACE_WORK/NAME.norm
# The tracer is the program in $TRACER_CMD (default: Debian's tracer, as installed); a test
# that runs it on another library sets TRACER_ENV (e.g. LD_LIBRARY_PATH=...).

tracer_wait_for() {
	local want=$1 n
	for n in $(seq 600); do
		grep -qF -- "$want" "$TRACER_DIR/screen" 2>/dev/null && return 0
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TRACER_DIR/screen" >&2
	pvm_env_fail "tracer: no \"$want\" on its screen"
}

tracer_start() {
	TRACER_DIR=$1
	shift
	mkdir -p "$TRACER_DIR"
	rm -f "$TRACER_DIR/in"
	mkfifo "$TRACER_DIR/in"
	# (cd: the tracer writes its trace file where it runs)
	( cd "$TRACER_DIR" && exec env ${TRACER_ENV:-} stdbuf -oL "${TRACER_CMD:-tracer}" -T trace.trf "$@" \
		< in > screen 2>&1 ) &
	TRACER_PID=$!
	exec 7> "$TRACER_DIR/in"
	tracer_wait_for "tracer> "
}

tracer_say() {
	local before
	before=$(grep -o "tracer> " "$TRACER_DIR/screen" | wc -l)
	echo "$*" >&7
	# the command is done when the next prompt appears
	local n
	for n in $(seq 600); do
		[ "$(grep -o "tracer> " "$TRACER_DIR/screen" | wc -l)" -gt "$before" ] && return 0
		sleep 0.1
	done
	pvm_env_fail "tracer did not answer \"$*\""
}

tracer_stop() {
	tracer_wait_for "Trace File Complete"
	echo quit >&7
	exec 7>&-
	wait "$TRACER_PID" || true   # (its exit status says nothing: quitting is not an error)
	grep -q "Quitting Tracer" "$TRACER_DIR/screen" ||
		pvm_env_fail "tracer did not quit: $(cat "$TRACER_DIR/screen")"
}

trace_run() {
	local name=$1 binary=$2 dir=$TRACE_WORK/$1
	shift 2
	cp "$binary" "$TRACE_PROG"
	tracer_start "$dir"
	tracer_say "trace + $TRACE_MASK"
	timeout 60 "$@" "$TRACE_PROG" ${TRACE_ARGS:-} > "$dir/prog.out" 2>&1 ||
		pvm_env_fail "$name: $(basename "$TRACE_PROG") failed: $(cat "$dir/prog.out")"
	grep -qF -- "$TRACE_WANT" "$dir/prog.out" ||
		pvm_env_fail "$name: $(basename "$TRACE_PROG")'s answer is wrong: $(cat "$dir/prog.out")"
	tracer_stop
	# spawned tasks write to the pvmd's log: a sanitizer report there fails the run too
	if [ -n "${PVM_TMP:-}" ] && grep -E "Sanitizer|runtime error" "$PVM_TMP"/pvml.* >&2; then
		pvm_env_fail "$name: a sanitizer report from a spawned task (above)"
	fi
	local trf=$dir/trace.trf
	# Debian's trcsort (3.4.6) cannot sort any trace here: it opens each task's temporary
	# file a second time with O_EXCL and stops at "Error Opening File". Used when it works;
	# the normaliser keeps each task's records in their order either way.
	if (cd "$dir" && trcsort -o sorted.trf trace.trf > trcsort.out 2>&1) &&
		grep -q '^"' "$dir/sorted.trf"; then
		trf=$dir/sorted.trf
	else
		echo "note: $name: trcsort failed ($(grep -m1 Error "$dir/trcsort.out" ||
			true)); records kept in the tracer's order" >&2
	fi
	python3 "$TRACE_NORMALIZE" "$trf" ${TRACE_HANDLERS:-} > "$TRACE_WORK/$name.norm"
}
