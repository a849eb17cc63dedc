#!/usr/bin/env bash
# Two processes exchange PDUs of every awkward size over a VC through an2d; no cell dropped.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
"$TBIN/t_exchange"
"$BIN/an2stat" | tee "$T/stat.txt"
# port 0 line: PORT CELLS_IN CELLS_OUT CREDITS STALLS DROPS
awk '$1 == "0" && NF == 6 { found = 1; if ($2 == 0 || $6 != 0) bad = 1 }
     END { exit !(found && !bad) }' "$T/stat.txt" || fail "port counters: no cells, or drops"
stop_an2d
echo "exchange: ok"
