#!/usr/bin/env bash
# hosts_idle.sh — an idle fabric sleeps: a switch and three hosts' an2d with their links up and
# no traffic use together under 1 % of a CPU over 10 s (their user + system time from /proc).
# With AN2_FH_CARRIER=shm, the links' memory is their two ends' alone: another uid can neither
# open a link's ring through /proc (the rings have no name elsewhere) nor get a link through
# the switch's socket.
source "$(dirname "$0")/fabric_hosts_lib.sh"

fh_up sw alpha beta gamma
fh_switch s1 sw
for h in alpha beta gamma; do fh_an2d "$h" sw:7000; done
fh_switch_shows s1 "1.2" || fail "the hosts did not come up"

pids=("$(cat "$T/s1.pid")")
for h in alpha beta gamma; do
    p=$(pgrep -f "an2d -d --socket $(fh_sock "$h")") || fail "no an2d on $h"
    pids+=("$p")
done
ticks() { # user + system clock ticks of the processes, summed
    local p sum=0 f
    for p in "${pids[@]}"; do
        read -ra f <"/proc/$p/stat" || fail "process $p went"
        sum=$((sum + f[13] + f[14]))
    done
    echo "$sum"
}
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep 10   # the measurement's window, not a wait for an event
used=$(($(ticks) - t0))
echo "idle: the switch and 3 an2d used $used ticks ($hz a second) in 10 s"
((used * 100 < hz * 10)) || fail "idle fabric used $used ticks in 10 s: not under 1 % of a CPU"

if [[ $FH_CARRIER == shm ]]; then
    sw=${pids[0]}
    # the rings are mapped, their descriptors closed: map_files names each mapping
    ring=$(find "/proc/$sw/map_files" -lname '/memfd:an2-link*' 2>/dev/null | head -n 1)
    [[ -n $ring ]] || fail "the switch maps no link ring (memfd an2-link)"
    head -c 4 "$ring" | od -An -tx1 | grep -q . || fail "root cannot read $ring either: test broken"
    other=$((60000 + $$ % 5000))
    if setpriv --reuid "$other" --regid "$other" --clear-groups cat "$ring" >/dev/null 2>&1; then
        fail "uid $other read a link's ring through $ring"
    fi
    echo "uid $other cannot open the switch's ring ($ring)"
    # the socket opened to every uid for this test: the switch's own check of the peer's
    # credentials is what must refuse it
    chmod o+x "$T" && chmod 0777 "$T/link-sw.sock"
    before=$(grep -c "up (its window" "$T/s1.log")
    setpriv --reuid "$other" --regid "$other" --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(5)
try:   # the switch closes at once: before our bytes, or after them
    s.sendall(b"\x05\x00\x00\x28" + bytes(40))
    sys.exit(0 if s.recv(1) == b"" else 1)
except (ConnectionResetError, BrokenPipeError):
    sys.exit(0)
' "$T/link-sw.sock" || fail "uid $other: the switch did not close its connection"
    [[ $(grep -c "up (its window" "$T/s1.log") == "$before" ]] || fail "uid $other got a link"
    grep -q "a link from another user refused" "$T/s1.log" || fail "the switch did not say why"
    echo "uid $other connecting to the switch's socket: closed, no link"
fi
echo "hosts_idle: ok"
