#!/usr/bin/env bash
# Sleeping an2d and sleeping task: a send kicks an2d awake, the interrupt wakes the task; and
# the controller's pulse: a task on the CPU of an an2d that cannot run sleeps, not yields.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
AN2_YIELD_US=200 "$TBIN/t_sleep" # the receiver falls asleep after 0.2 ms
AN2D_PID=$AN2D_PID "$TBIN/t_pulse" || { kill -CONT "$AN2D_PID" 2>/dev/null; fail "t_pulse"; }
stop_an2d
echo "sleep: ok"
