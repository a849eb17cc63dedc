#!/usr/bin/env bash
# Descriptors naming memory outside the task's region, written through its real mapping,
# earn PROTECTION reports and write nothing.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_protect"
stop_an2d
echo "protect: ok"
