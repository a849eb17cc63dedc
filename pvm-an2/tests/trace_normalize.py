#!/usr/bin/env python3
"""Puts a trace file written by Debian's tracer in a form two runs can be compared in: the
event records only, times replaced by T, task ids by the task's role (P the task that spawns
the others, C1, C2 ... its children in the order pvm_spawn listed them, K the task that
started P if any), buffer ids (as a
receive, pvm_initsend or pvm_mkbuf return them, as pvm_freebuf takes them) by B and the data
addresses of the pack calls by A: libraries number buffers and place data as they like; the
times a timing summary adds up by S; the clock difference a remote pvmd measured to the master
(host_sync) by D.
Records grouped by task, each task's in the order it made them; then the task's message-handler
invocations (mhf_invoke, with the records of the calls its handler made, which follow it: a
handler runs when its message is read, at no fixed place among the task's calls), the buffer id
in each by B, and in the buffer calls around the handler every buffer id by B (the caller's
buffers then are 0 or not by where the handler ran); then the task's output records (the pvmd's, which reach the tracer when the pvmd
reads the task's output: at no fixed place among the task's own), in their order."""
import re
import sys

RECORD = re.compile(r'^"([^"]+)" \{ (.*) \};;$')
TOKEN = re.compile(r'(?:\[\d+\] )+\{ [^}]* \}|"[^"]*"|-?\d+(?:\.\d+)?')
BUFFER_IDS = ("recv(1.1)", "nrecv(1.1)", "trecv(1.1)", "initsend(1.1)", "mkbuf(1.1)",
              "freebuf(0.0)", "getminfo(0.0)", "setminfo(0.0)", "setsbuf(0.0)", "setsbuf(1.1)",
              "setrbuf(0.0)", "setrbuf(1.1)", "getsbuf(1.1)", "getrbuf(1.1)")
PACK_ENTRY = re.compile(r"^u?pk[a-z]+\(0\.0\)$")
TC_SIBLINGS = "-2147287028"   # <pvmproto.h>'s 0x8003000c
# the calls the library's own handlers make, which follow their mhf_invoke (TC_SIBLINGS:
# the count, the task ids, the message freed); a program's are given as arguments
HANDLER_CALLS = {TC_SIBLINGS: ["upkint", "upkint", "freebuf"]}
# ... between those stock makes around every handler (those the mask names are traced)
BEFORE_HANDLER = ["setsbuf", "setrbuf", "setcontext"]
AFTER_HANDLER = ["setcontext", "setsbuf", "freebuf", "setrbuf", "freebuf"]


# around a handler, the caller's buffers (0 or not, by where the handler ran) and the message
WRAPPER_BUFFERS = ("setsbuf(0.0)", "setsbuf(1.1)", "setrbuf(0.0)", "setrbuf(1.1)", "freebuf(0.0)")


def handler_block(calls):
    return [c + ee for c in BEFORE_HANDLER + calls + AFTER_HANDLER for ee in ("(0.0)", "(1.1)")]


def records(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = RECORD.match(line.rstrip("\n"))
            if m:
                yield m.group(1), TOKEN.findall(m.group(2))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: trace_normalize.py TRACEFILE [TAG=CALL,CALL...]...\n"
                 "  (TAG=...: the calls the program's handler for messages of TAG makes)")
    for spec in sys.argv[2:]:
        tag, sep, calls = spec.partition("=")
        if not sep or not re.fullmatch(r"-?\d+", tag):
            sys.exit("trace_normalize.py: not TAG=CALL,CALL...: " + spec)
        HANDLER_CALLS[tag] = [call for call in calls.split(",") if call]
    recs = list(records(sys.argv[1]))
    if not recs:
        sys.exit("trace_normalize.py: no event records in " + sys.argv[1])
    # the pvmd's newtask records, in the order the tasks started: TS TU TID PT TF TN
    started = [(f[2], f[3]) for name, f in recs if name == "newtask(0)" and len(f) > 3]
    tids = {tid for tid, _ in started}
    role = {}
    for tid, parent in started:   # P: the first task not started by another traced task
        if parent not in tids:
            role[tid] = "P"
            if parent != "-1":
                role[parent] = "K"
            break
    children = [tid for tid, parent in started if role.get(parent) == "P"]
    for i, tid in enumerate(children):
        role.setdefault(tid, "C%d" % (i + 1))

    def sub(tok):
        return re.sub(r"-?\d+", lambda m: role.get(m.group(0), m.group(0)), tok)

    groups = {}   # by task: its calls, its handlers' blocks, its output
    expect = {}   # by task: the calls still to come of the handler invoked last
    for name, f in recs:
        if name == "user_defined(0)" and len(f) >= 3:   # TID, TS, TU, then the task's values
            f = ["T", "T", f[0]] + f[3:]   # (in the others' order: TS, TU, TID)
        else:
            f = ["T", "T"] + f[2:]
        if name in BUFFER_IDS and len(f) > 3 and int(f[3]) > 0:
            f[3] = "B"
        if PACK_ENTRY.match(name) and len(f) > 3:
            f[3] = "A"
        if name in ("psend(0.0)", "precv(0.0)") and len(f) > 6:   # after DST|RST, MC, MCX
            f[6] = "A"
        if name == "host_sync(0)" and len(f) > 4:   # HCS and HCU: seconds, microseconds
            f[3] = f[4] = "D"
        if name == "mhf_invoke(0.0)" and len(f) > 6:   # RST RMC RCX, then the message's MB
            f[6] = "B"
        if name == "putinfo(0.0)" and len(f) > 6:   # CN CI CF, then CD: the message
            f[6] = "B"
        if name == "getinfo(1.1)" and len(f) > 4 and int(f[4]) > 0:   # CC, then CR: the message
            f[4] = "B"
        if name == "timing(0)" and len(f) > 7:   # TGS and TGU: seconds, microseconds
            f[5] = f[6] = "S"
        who = role.get(f[2], "host " + f[2])
        line = '"%s" { %s }' % (name, ", ".join(sub(t) for t in f))
        calls, handlers, output = groups.setdefault(who, ([], [], []))
        if name == "output(0)":
            # our library's own diagnostics (the fast path's, which Debian's library has not)
            # are no part of what the program traced: left out of the comparison
            if "AN2 fast path: " not in line:
                output.append(line)
        elif name == "mhf_invoke(0.0)":
            expect[who] = handler_block(HANDLER_CALLS.get(f[4], []))
            handlers.append(line)
        elif name in expect.get(who, []):   # (the calls the mask leaves out are not there)
            del expect[who][:expect[who].index(name) + 1]
            if name in WRAPPER_BUFFERS and len(f) > 3:
                f[3] = "B"
                line = '"%s" { %s }' % (name, ", ".join(sub(t) for t in f))
            handlers.append(line)
        else:
            expect[who] = []
            calls.append(line)
    for who in sorted(groups):
        print("== " + who)
        print("\n".join(groups[who][0] + groups[who][1] + groups[who][2]))


main()
