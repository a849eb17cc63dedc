# fabric_lib.sh — sourced by the daemon-level tests: a private temp dir and an2d, stopped and
# removed on any exit, with a check that an2d left no file and no process behind.
set -euo pipefail

BIN=${AN2_BUILD_DIR:?}/bin
TBIN=${AN2_BUILD_DIR}/driver/tests
T=$(mktemp -d "${AN2_BUILD_DIR}/fabric-test.XXXXXX")
export AN2_SOCKET=$T/an2d.sock
export AN2_NO_AUTOSTART=1
export PVM_TMP=$T
AN2D_PID=
KIDS=()

cleanup() {
    local rc=$?
    for k in "${KIDS[@]}"; do kill -KILL "$k" 2>/dev/null || true; done
    if [ -n "$AN2D_PID" ] && kill -0 "$AN2D_PID" 2>/dev/null; then
        kill -TERM "$AN2D_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$AN2D_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$AN2D_PID" 2>/dev/null || true
    fi
    # an2ds that a task of the test started (daemonised, so not our children)
    pkill -KILL -f -- "an2d .*--socket $T/" 2>/dev/null || true
    if [ $rc -ne 0 ] && [ -f "$T/an2d.log" ]; then
        echo "--- an2d log"; tail -n 40 "$T/an2d.log"
    fi
    rm -rf "$T"
    exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }

# start_an2d [options...]: an2d in the foreground (a child of this shell), logging to $T.
start_an2d() {
    "$BIN/an2d" --socket "$AN2_SOCKET" --log-file "$T/an2d.log" "$@" &
    AN2D_PID=$!
    until_answers
}

# WAIT_S: how long a test waits for an event that must come (a loaded machine is slow).
WAIT_S=${AN2_TEST_WAIT_S:-30}
# wait_for WHAT CMD...: until CMD succeeds (polled); after WAIT_S seconds, fail naming WHAT.
wait_for() {
    local what=$1 end=$((SECONDS + WAIT_S)); shift
    until "$@"; do
        [ $SECONDS -lt $end ] || fail "waited $WAIT_S s for $what"
        sleep 0.05
    done
}
# until_answers: the an2d at $AN2D_PID answers an2stat (it must not have exited)
until_answers() {
    local end=$((SECONDS + WAIT_S))
    until "$BIN/an2stat" --summary >/dev/null 2>&1; do
        kill -0 "$AN2D_PID" 2>/dev/null || fail "an2d exited at start"
        [ $SECONDS -lt $end ] || fail "an2d did not answer at $AN2_SOCKET within $WAIT_S s"
        sleep 0.05
    done
}
# proc_state_is PID LETTERS: /proc/PID/stat's state is one of LETTERS (S: asleep, T: stopped)
proc_state_is() {
    local st
    st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] &&
        [[ "$2" == *"$st"* ]]
}

# stop_an2d: the clean stop command; an2d must exit 0 and remove its socket, pid and lock.
stop_an2d() {
    "$BIN/an2d" --stop --socket "$AN2_SOCKET" || fail "an2d --stop failed"
    local st=0
    if [ -n "$AN2D_PID" ]; then wait "$AN2D_PID" || st=$?; fi
    AN2D_PID=
    [ $st -eq 0 ] || fail "an2d exited with status $st"
    for f in "$T"/an2d.sock "$T"/an2d.pid "$T"/an2d.lock; do
        [ ! -e "$f" ] || fail "an2d left $f behind"
    done
}

# log_has TEXT: an2d's log contains TEXT.
log_has() { grep -q -- "$1" "$T/an2d.log"; }
