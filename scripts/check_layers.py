#!/usr/bin/env python3
"""Checks the include rules of the source folders, so that the layering stays.

Each `LAYERS` file (found at any depth, build trees aside) declares, one folder a line, which
folders the C files of that folder may include from, paths relative to the repository root:

    pvm-an2/src/core:  pvm-an2/src/core driver/include

A file belongs to the longest declared folder that holds it; a quoted `#include "x.h"` is
resolved against the including file's own folder first, then against every header of the
repository by the path it writes (so header names must not repeat where they are included by
bare name); an angle-bracket include is checked the same way when it names a header of the
repository, and is the system's otherwise. Fails, naming file, line
and header, when a declared folder includes from a folder it does not list, when a quoted
include matches no header or more than one, or when the declared folders depend on each other
in a circle. Usage: check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

SKIP_DIRS = {".git", "Testing"}
INCLUDE = re.compile(r'^\s*#\s*include\s+(["<])([^">]+)[">]')


def walk(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        for f in files:
            yield os.path.relpath(os.path.join(d, f), root)


def read_rules(root, paths):
    rules = {}
    for p in paths:
        if os.path.basename(p) != "LAYERS":
            continue
        with open(os.path.join(root, p)) as f:
            for n, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                folder, sep, allowed = line.partition(":")
                if not sep:
                    sys.exit(f"{p}:{n}: expected 'FOLDER: ALLOWED...'")
                rules[folder.strip().rstrip("/")] = {a.rstrip("/") for a in allowed.split()}
    return rules


def owner(path, rules):
    best = None
    for folder in rules:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def find_circle(rules):
    graph = {f: {a for a in allowed if a in rules and a != f} for f, allowed in rules.items()}
    state = {}

    def visit(f, stack):
        state[f] = 1
        for g in sorted(graph[f]):
            if state.get(g) == 1:
                return stack[stack.index(g):] + [g]
            if g not in state:
                c = visit(g, stack + [g])
                if c:
                    return c
        state[f] = 2
        return None

    for f in sorted(graph):
        if f not in state:
            c = visit(f, [f])
            if c:
                return c
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    paths = list(walk(root))
    rules = read_rules(root, paths)
    if not rules:
        sys.exit("check_layers: no LAYERS file found")
    headers = [p for p in paths if p.endswith(".h")]
    errors = []
    circle = find_circle(rules)
    if circle:
        errors.append("folders in a circle: " + " -> ".join(circle))
    checked = 0
    for p in sorted(paths):
        if not p.endswith((".c", ".h")):
            continue
        mine = owner(p, rules)
        if mine is None:
            continue
        checked += 1
        with open(os.path.join(root, p), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quoted, written = m.group(1) == '"', m.group(2)
                name = os.path.normpath(written)
                local = os.path.normpath(os.path.join(os.path.dirname(p), name))
                if quoted and local in paths:
                    found = [local]
                else:
                    found = [h for h in headers if h == name or h.endswith("/" + name)]
                if not quoted and not found:
                    continue   # the system's
                if len(found) != 1:
                    why = "matches no header" if not found else "is ambiguous: " + ", ".join(found)
                    errors.append(f"{p}:{n}: {written} {why}")
                    continue
                theirs = owner(found[0], rules) or os.path.dirname(found[0])
                if theirs != mine and not any(
                        found[0] == a or found[0].startswith(a + "/") for a in rules[mine]):
                    errors.append(f"{p}:{n}: {mine} may not include {found[0]}")
    for e in errors:
        print("check_layers: " + e, file=sys.stderr)
    print(f"check_layers: {checked} files in {len(rules)} folders, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
