#!/usr/bin/env bash
# A task that stops reading (no receive buffers, a full report ring, a report index far ahead)
# costs an2d no CPU, and everything goes on when the task does.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_stall" "$AN2D_PID"
stop_an2d
echo "stall: ok"
