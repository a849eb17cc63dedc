#!/usr/bin/env bash
# Sleeping an2d and sleeping task: a send kicks an2d awake, the interrupt wakes the task.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
AN2_YIELD_US=200 "$TBIN/t_sleep" # the receiver falls asleep after 0.2 ms
stop_an2d
echo "sleep: ok"
