#!/usr/bin/env bash
# The polling path makes no system call per message: under strace -f -c, a ping-pong of 2000
# round trips makes no more system calls than one of 200, the waiting ones aside: sched_yield,
# the 20 us clock_nanosleep that stands in for it while an2d waits for the task's CPU, and the
# sched_getaffinity and sched_setaffinity that move an2d, starved on another CPU, to the
# waiting task's (an2_yield, at most one try per pulse; t_pulse checks when each happens).
. "$(dirname "$0")/fabric_lib.sh"
command -v strace >/dev/null || fail "strace is not installed (scripts/deps.sh)"
start_an2d --yield-us 1000000
export AN2_YIELD_US=1000000 # never fall asleep under strace's slowdown: only polling counts
count_calls() { # count_calls N -> system calls other than the waiting ones
    strace -f -c -o "$T/strace.$1" "$TBIN/t_pingpong" "$1" 40 >/dev/null
    awk '$NF ~ /^(sched_yield|clock_nanosleep|sched_[gs]etaffinity|total)$/ || $1 ~ /^-/ ||
         $1 == "%" { next }
         { n += ($4 ~ /^[0-9]+$/) ? $4 : $3 } END { print n + 0 }' "$T/strace.$1"
}
few=$(count_calls 200)
many=$(count_calls 2000)
naps=$(awk '$NF == "clock_nanosleep" { print ($4 ~ /^[0-9]+$/) ? $4 : $3 }' "$T/strace.2000")
echo "system calls besides waiting: $few for 200 round trips, $many for 2000 (and ${naps:-0} naps)"
[ $((many - few)) -lt 90 ] || { cat "$T/strace.2000"; fail "system calls grow with messages"; }
stop_an2d
echo "nosyscall: ok"
