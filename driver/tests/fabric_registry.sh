#!/usr/bin/env bash
# The endpoint registry through an2d: one holder per name, name 0 gives it up, closing frees it.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_registry"
stop_an2d
echo "registry: ok"
