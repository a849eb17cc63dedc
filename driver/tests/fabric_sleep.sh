#!/usr/bin/env bash
# Sleeping an2d and sleeping task: a send kicks an2d awake, the interrupt wakes the task.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_sleep"
stop_an2d
echo "sleep: ok"
