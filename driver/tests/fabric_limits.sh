#!/usr/bin/env bash
# Per-task limits and VC signalling errors come back as clear errors.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d --max-buf-size 8M --max-vcs 4 --max-desc-mem 256K
"$TBIN/t_limits"
stop_an2d
echo "limits: ok"
