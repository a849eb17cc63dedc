#!/usr/bin/env bash
# Another user on the machine (uid 4242) plants things where an2d and its clients look, in a
# shared sticky directory: a directory and a socket posing as an2d's, symlinks and a FIFO where
# an2d writes its pid, lock and log, a file of its own as the pid file. A client sends the
# impostor nothing and says why; a root an2d refuses to start and writes nowhere it should not.
. "$(dirname "$0")/fabric_lib.sh"
unset AN2_SOCKET AN2_NO_AUTOSTART
export AN2D_PATH=$BIN/an2d
other() { setpriv --reuid=4242 --regid=4242 --clear-groups "$@"; }
other_exec() { exec setpriv --reuid=4242 --regid=4242 --clear-groups "$@"; } # (as $!, with &)
chmod 0755 "$T"
S=$T/shared
mkdir -m 1777 "$S"
export PVM_TMP=$S
for v in victim victim2 victim3; do echo precious > "$T/$v"; done

# refuses_to_start WHAT ARGS...: an2d exits non-zero, promptly, and says WHAT
refuses_to_start() {
    local what=$1 rc=0; shift
    timeout 20 "$BIN/an2d" "$@" > "$T/out" 2>&1 || rc=$?
    [ $rc -ne 0 ] || fail "an2d $* started"
    [ $rc -ne 124 ] || fail "an2d $* hung"
    grep -q -- "$what" "$T/out" || fail "an2d $*: no '$what' in: $(cat "$T/out")"
}

# 1. The default directory planted by the other user, an impostor listening in it.
other mkdir -m 0777 "$S/an2d.$(id -u)"
# the impostors serve until SIGTERM, when every client has been to them
other_exec "$TBIN/t_fake_an2d" "$S/an2d.$(id -u)/an2d.sock" 100 > "$T/fake1" &
fake1=$!
KIDS+=($fake1)
wait_for "the first impostor to listen" grep -q listening "$T/fake1"
"$TBIN/t_hold" 1 0 open > "$T/out" 2>&1 && fail "a client used the planted directory"
grep -q "owned by another user" "$T/out" || fail "no reason given: $(cat "$T/out")"
refuses_to_start "owned by another user" --socket "$S/an2d.$(id -u)/an2d.sock"

# 2. An impostor at an explicit socket path: no byte sent to it, by the library, an2stat or
# an2d --stop, and each says who it found there.
other_exec "$TBIN/t_fake_an2d" "$S/fake.sock" 100 > "$T/fake2" &
fake2=$!
KIDS+=($fake2)
wait_for "the second impostor to listen" grep -q listening "$T/fake2"
AN2_SOCKET=$S/fake.sock "$TBIN/t_hold" 1 0 open > "$T/out" 2>&1 && fail "a client trusted the impostor"
grep -q "runs as uid 4242" "$T/out" || fail "no reason given: $(cat "$T/out")"
"$BIN/an2stat" -s "$S/fake.sock" > "$T/out" 2>&1 && fail "an2stat trusted the impostor"
grep -q "runs as uid 4242" "$T/out" || fail "an2stat gave no reason: $(cat "$T/out")"
"$BIN/an2d" --stop --socket "$S/fake.sock" > "$T/out" 2>&1 && fail "an2d --stop trusted the impostor"
grep -q "runs as uid 4242" "$T/out" || fail "an2d --stop gave no reason: $(cat "$T/out")"
kill -TERM $fake1 $fake2
for f in $fake1 $fake2; do wait "$f" || fail "an impostor failed"; done
KIDS=()
cat "$T/fake1" "$T/fake2"
grep -q "fake: 0 connections, 0 bytes" "$T/fake1" || fail "a client reached the planted directory's impostor"
grep -q "connections, 0 bytes received" "$T/fake2" || fail "the impostor received bytes"

# 3. Symlinks where a root an2d writes its pid, takes its lock and appends its log.
other ln -s "$T/victim" "$S/p.pid"
refuses_to_start "p.pid" --socket "$S/p.sock"
other ln -s "$T/victim2" "$S/l.log"
refuses_to_start "l.log" --socket "$S/l.sock" --log-file "$S/l.log"
other ln -s "$T/victim3" "$S/k.lock"
refuses_to_start "k.lock" --socket "$S/k.sock"
for v in victim victim2 victim3; do
    [ "$(cat "$T/$v")" = precious ] || fail "$v was written through a symlink"
done

# 4. A FIFO as the log (opening it would block) and another user's file as the pid file.
other mkfifo -m 0666 "$S/f.log"
refuses_to_start "f.log" --socket "$S/f.sock" --log-file "$S/f.log"
other sh -c "echo 4242 > '$S/o.pid' && chmod 666 '$S/o.pid'"
refuses_to_start "o.pid" --socket "$S/o.sock"
[ "$(cat "$S/o.pid")" = 4242 ] || fail "another user's pid file was overwritten"
pgrep -f "an2d .*--socket $S" && fail "an an2d is still running"

# 5. Nothing of ours is left in the shared directory.
left=$(find "$S" -user 0 -mindepth 1)
[ -z "$left" ] || fail "left behind: $left"
echo "hostile: ok"
