#!/usr/bin/env bash
# pvm_an2trace: an2trace on a recorded trace (data/trace_prog.trf: trace_prog on libpvm3-an2,
# written by Debian's tracer with its default mask): JSON that parses, one flow (start and
# finish, one id) for each of the run's eight messages (sends, a multicast to two, psends),
# from its sender's row to its receiver's, inside slices of theirs; the user-defined event as
# an instant with its values; a PNG; and a clear error, no traceback, for input it cannot read.
# Usage: run_an2trace.sh AN2TRACE
set -euo pipefail
an2trace=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${AN2_BUILD_DIR:-/tmp}/an2trace.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$an2trace" --json "$work/run.json" --png "$work/run.png" "$here/data/trace_prog.trf" > "$work/out"
grep -q "3 tasks, 8 messages -> " "$work/out" || fail "an2trace says: $(cat "$work/out")"
python3 - "$work/run.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
assert len(starts) == 8 and starts.keys() == ends.keys(), (len(starts), len(ends))
rows = {e["tid"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert len(rows) == 3, rows
slices = [e for e in ev if e["ph"] == "X"]
def inside(f):
    return any(s["tid"] == f["tid"] and s["ts"] <= f["ts"] <= s["ts"] + s["dur"] for s in slices)
for i, s in starts.items():
    f = ends[i]
    assert s["tid"] != f["tid"] and s["ts"] <= f["ts"], (s, f)
    assert inside(s) and inside(f), (s, f)
    assert f["bp"] == "e"
names = {e["name"] for e in slices}
assert {"computing", "recv", "precv", "send", "mcast", "psend"} <= names, names
user = [e for e in ev if e["ph"] == "i"]
assert len(user) == 1 and user[0]["args"]["values"] == [["children spawned"], 1, [2, 7], 0.5], user
print("json: 3 rows, 8 flows, a user event, spans", sorted(names))
PY
[ "$(head -c 8 "$work/run.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "run.png is not a PNG"
[ "$(stat -c %s "$work/run.png")" -gt 2000 ] || fail "run.png is empty"

# input it cannot read: a message and status 1, never a traceback
: > "$work/empty.trf"
printf '"send(0.0)" { 1, 2, 3 };;\n' > "$work/nodesc.trf"
sed 's/^"recv(1.1)" { \([0-9]*\), /"recv(1.1)" { \1, x, /' "$here/data/trace_prog.trf" > "$work/bad.trf"
head -c 3000 "$here/data/trace_prog.trf" > "$work/cut.trf"
for input in empty nodesc bad cut missing; do
	set +e
	"$an2trace" --no-png --json "$work/$input.json" "$work/$input.trf" > "$work/$input.out" 2>&1
	status=$?
	set -e
	if [ "$input" = cut ] && [ "$status" = 0 ]; then
		continue   # a trace cut short is still a trace: what it holds is drawn
	fi
	[ "$status" = 1 ] || fail "$input: status $status: $(cat "$work/$input.out")"
	grep -q '^an2trace: ' "$work/$input.out" && ! grep -q Traceback "$work/$input.out" ||
		fail "$input: no clear error: $(cat "$work/$input.out")"
done
"$an2trace" --bogus x > "$work/opt.out" 2>&1 && fail "an unknown option was accepted"
grep -q "unknown option --bogus" "$work/opt.out" || fail "unknown option: $(cat "$work/opt.out")"
echo "an2trace: JSON with 8 flows and a user event, a PNG, clear errors on bad input"
