#!/usr/bin/env bash
# an2d's fault injection: with bit errors, then with cell loss, damaged PDUs come back as CRC
# or length errors and every PDU delivered as good is intact.
. "$(dirname "$0")/fabric_lib.sh"
check() { # check OPTIONS...: some PDUs good, some damaged
    start_an2d "$@"
    "$TBIN/t_faults" 300 4096 | tee "$T/faults.txt"
    stop_an2d
    read -r _ good _ damaged _ < "$T/faults.txt"
    [ "$good" -gt 0 ] && [ "$damaged" -gt 0 ] || fail "$*: expected both good and damaged PDUs"
}
check --ber 2e-6 --fault-seed 7
check --cell-loss 0.002 --fault-seed 7
echo "faults: ok"
