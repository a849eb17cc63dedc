#!/usr/bin/env bash
# The polling path makes no system call per message: under strace -f -c, a ping-pong of 2000
# round trips makes no more system calls (sched_yield aside) than one of 200.
. "$(dirname "$0")/fabric_lib.sh"
command -v strace >/dev/null || fail "strace is not installed (scripts/deps.sh)"
start_an2d --yield-us 1000000
export AN2_YIELD_US=1000000 # never fall asleep under strace's slowdown: only polling counts
count_calls() { # count_calls N -> system calls other than sched_yield
    strace -f -c -o "$T/strace.$1" "$TBIN/t_pingpong" "$1" 40 >/dev/null
    awk '$NF == "sched_yield" || $NF == "total" || $1 ~ /^-/ || $1 == "%" { next }
         { n += ($4 ~ /^[0-9]+$/) ? $4 : $3 } END { print n + 0 }' "$T/strace.$1"
}
few=$(count_calls 200)
many=$(count_calls 2000)
echo "system calls besides sched_yield: $few for 200 round trips, $many for 2000"
[ $((many - few)) -lt 90 ] || { cat "$T/strace.2000"; fail "system calls grow with messages"; }
stop_an2d
echo "nosyscall: ok"
