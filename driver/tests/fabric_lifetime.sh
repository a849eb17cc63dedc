#!/usr/bin/env bash
# An an2d that a task started goes by itself: after AN2D_IDLE_EXIT seconds without a client
# (not while one holds an endpoint), and as soon as its control socket is removed (its PVM_TMP
# deleted); a clean stop takes its default log (unless AN2D_KEEP_LOG) and its private
# directory ${PVM_TMP}/an2d.<uid>/ with it.
. "$(dirname "$0")/fabric_lib.sh"
unset AN2_SOCKET AN2_NO_AUTOSTART
export AN2D_PATH=$BIN/an2d
dir=$T/an2d.$(id -u)

# until_gone PID: waits (up to 20 s) until the process has exited
until_gone() {
    for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    fail "an2d (pid $1) is still running"
}
an2d_pid() { cat "$dir/an2d.pid" 2>/dev/null || fail "no pid file in $dir"; }
logged_pid() { sed -n 's/.*an2d\[\([0-9]*\)\]: serving at.*/\1/p' "$dir/an2d.log" | tail -1; }

# 1. Idle exit, never while an endpoint is held: a task holds one for 3 s with a 1 s limit.
AN2D_IDLE_EXIT=1 AN2D_KEEP_LOG=1 "$TBIN/t_hold" 1 3 open || fail "an2d left a client"
[ "$(stat -c %a "$dir")" = 700 ] || fail "an2d's directory is not private: $(stat -c %a "$dir")"
pid=$(logged_pid)
[ -n "$pid" ] || fail "no an2d served"
until_gone "$pid"
grep -q "no client for 1 s: stopping" "$dir/an2d.log" || fail "the idle exit was not logged"
ls "$dir" | grep -qvx "an2d.log" && fail "an2d left files behind: $(ls "$dir")"
rm "$dir/an2d.log"
rmdir "$dir"

# 2. Without AN2D_KEEP_LOG a clean stop takes the log and the directory too.
AN2D_IDLE_EXIT=2 "$TBIN/t_hold" 1 0 open >/dev/null || fail "an2_open"
pid=$(an2d_pid)
until_gone "$pid"
[ ! -e "$dir" ] || fail "an2d left $dir behind: $(ls -A "$dir")"

# 3. Its socket removed (PVM_TMP deleted): an2d goes, with no idle limit at all.
AN2D_IDLE_EXIT=0 "$TBIN/t_hold" 1 0 open >/dev/null || fail "an2_open"
pid=$(an2d_pid)
rm -rf "$dir"
until_gone "$pid"

# 4. Replaced by another an2d's socket: the first goes and leaves the newcomer's files alone.
AN2D_IDLE_EXIT=0 "$TBIN/t_hold" 1 0 open >/dev/null || fail "an2_open"
old=$(an2d_pid)
rm -rf "$dir"
AN2D_IDLE_EXIT=0 "$TBIN/t_hold" 1 0 open >/dev/null || fail "a second an2d did not start"
new=$(an2d_pid)
[ "$old" != "$new" ] || fail "no new an2d"
until_gone "$old"
[ -S "$dir/an2d.sock" ] && [ -e "$dir/an2d.lock" ] || fail "the old an2d took the new one's files"
"$BIN/an2stat" --summary >/dev/null || fail "the new an2d does not answer"
"$BIN/an2d" --stop || fail "an2d --stop"
until_gone "$new"
[ ! -e "$dir" ] || fail "an2d left $dir behind: $(ls -A "$dir")"
echo "lifetime: ok"
