#!/usr/bin/env bash
# Sleeping an2d and sleeping task: a send kicks an2d awake, the interrupt wakes the task; and
# the controller's pulse: a task on the CPU of an an2d that cannot run sleeps, not yields.
. "$(dirname "$0")/fabric_lib.sh"
start_an2d
AN2_YIELD_US=200 "$TBIN/t_sleep" # the receiver falls asleep after 0.2 ms
# In an2d's session a yield reaches it; in a session of its own (autogroup) it does not, and
# where it would wait for an2d the task sleeps instead. t_pulse stops an2d awake right after
# a TX report: an an2d that yields a whole second before it sleeps is still awake then,
# however late the test gets to look on a loaded machine.
stop_an2d
start_an2d --yield-us 1000000
export AN2D_PID
T_PULSE_GROUP=same "$TBIN/t_pulse" || { kill -CONT "$AN2D_PID" 2>/dev/null; fail "t_pulse (same group)"; }
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
    T_PULSE_GROUP=apart setsid --wait "$TBIN/t_pulse" ||
        { kill -CONT "$AN2D_PID" 2>/dev/null; fail "t_pulse (another session)"; }
else
    echo "sleep: autogroup is off here: a task of another session shares an2d's group; not tested"
fi
stop_an2d
echo "sleep: ok"
