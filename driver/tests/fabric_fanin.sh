#!/usr/bin/env bash
# Three senders at once into one endpoint, a VC each: demultiplexed by VC, in order, intact.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_fanin"
"$BIN/an2stat" -p | awk '$1 == "0" && NF == 6 && $6 != 0 { exit 1 }' || fail "cells dropped"
stop_an2d
echo "fanin: ok"
