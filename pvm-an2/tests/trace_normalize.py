#!/usr/bin/env python3
"""Puts a trace file written by Debian's tracer in a form two runs can be compared in: the
event records only, times replaced by T, task ids by the task's role (P the task started
from the shell, C1, C2 ... its children in the order pvm_spawn listed them), buffer ids (as a
receive, pvm_initsend or pvm_mkbuf return them, as pvm_freebuf takes them) by B and the data
addresses of the pack calls by A: libraries number buffers and place data as they like.
Records grouped by task, each task's in the order it made them."""
import re
import sys

RECORD = re.compile(r'^"([^"]+)" \{ (.*) \};;$')
TOKEN = re.compile(r'\[\d+\] \{ [^}]* \}|"[^"]*"|-?\d+')
BUFFER_IDS = ("recv(1.1)", "nrecv(1.1)", "trecv(1.1)", "initsend(1.1)", "mkbuf(1.1)",
              "freebuf(0.0)")
PACK_ENTRY = re.compile(r"^u?pk[a-z]+\(0\.0\)$")


def records(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = RECORD.match(line.rstrip("\n"))
            if m:
                yield m.group(1), TOKEN.findall(m.group(2))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: trace_normalize.py TRACEFILE")
    recs = list(records(sys.argv[1]))
    if not recs:
        sys.exit("trace_normalize.py: no event records in " + sys.argv[1])
    role = {}
    for name, f in recs:
        if name == "newtask(0)" and len(f) > 3 and f[3] == "-1":
            role.setdefault(f[2], "P")
    for name, f in recs:
        if name == "spawn(1.1)" and len(f) > 4:
            for i, tid in enumerate(re.findall(r"-?\d+", f[4].split("{", 1)[1])):
                role.setdefault(tid, "C%d" % (i + 1))

    def sub(tok):
        return re.sub(r"-?\d+", lambda m: role.get(m.group(0), m.group(0)), tok)

    groups = {}
    for name, f in recs:
        f = ["T", "T"] + f[2:]
        if name in BUFFER_IDS and len(f) > 3 and int(f[3]) > 0:
            f[3] = "B"
        if PACK_ENTRY.match(name) and len(f) > 3:
            f[3] = "A"
        who = role.get(f[2], "host " + f[2])
        groups.setdefault(who, []).append('"%s" { %s }' % (name, ", ".join(sub(t) for t in f)))
    for who in sorted(groups):
        print("== " + who)
        print("\n".join(groups[who]))


main()
