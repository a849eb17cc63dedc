#!/usr/bin/env bash
# bench/pingpong_ab.sh: the PVM ping-pong over AN2 (pvmbench-an2, 8 B and 1 KiB) on two builds
# of libpvm3-an2, A and B, interleaved round by round under one private pvmd, so that a change
# to the fast path is measured against what it changes in one run (load on a shared machine
# touches both alike). Prints each build's median over the rounds and the per-round ratio B/A.
# Usage: bench/pingpong_ab.sh LIBDIR_A LIBDIR_B [ROUNDS] [BUILD]
#   LIBDIR_*: directories holding libpvm3-an2.so.0 (a build's lib/); BUILD: the build whose
#   bin/pvmbench-an2 and an2d run (default: $AN2_BUILD_DIR, else ./build). Needs Debian's pvmd.
set -uo pipefail
a=$(cd "${1:?LIBDIR_A}" && pwd) && b=$(cd "${2:?LIBDIR_B}" && pwd) || exit 2
rounds=${3:-9}
build=$(cd "${4:-${AN2_BUILD_DIR:-build}}" && pwd) || exit 2
bin=$build/bin
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "pingpong_ab: ROUNDS 1..99" >&2; exit 2; }
for f in "$a/libpvm3-an2.so.0" "$b/libpvm3-an2.so.0" "$bin/pvmbench-an2" "$bin/an2d"; do
  [ -e "$f" ] || { echo "pingpong_ab: no $f" >&2; exit 2; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/pingpong_ab.XXXXXX") || exit 2
export PVM_TMP=$dir PVM_VMID=ab$$ PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
pvmd_pid=""
cleanup() {
  [ -n "$pvmd_pid" ] && kill "$pvmd_pid" 2>/dev/null && wait "$pvmd_pid" 2>/dev/null
  ls "$dir"/an2d.* >/dev/null 2>&1 && "$bin/an2d" --stop >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
echo "* ep=$bin" > "$dir/hostfile"
env -u LD_LIBRARY_PATH pvmd "$dir/hostfile" </dev/null >"$dir/pvmd.out" 2>&1 &
pvmd_pid=$!
for i in $(seq 100); do [ -s "$dir/pvmd.$(id -u).$PVM_VMID" ] && break; sleep 0.05; done
[ -s "$dir/pvmd.$(id -u).$PVM_VMID" ] || { cat "$dir/pvmd.out" >&2; exit 1; }
for r in $(seq "$rounds"); do
  for lib in A B; do   # (the slave gets the same library through PVM_EXPORT)
    l=$a; [ $lib = B ] && l=$b
    LD_LIBRARY_PATH=$l PVM_EXPORT=LD_LIBRARY_PATH timeout 120 "$bin/pvmbench-an2" --sizes 8,1024 \
      --runs 7 --trial-ms 100 --label "$lib-r$r" --csv "$dir/out.csv" >/dev/null 2>"$dir/err" ||
      { cat "$dir/err" >&2; exit 1; }
  done
done
for s in 8 1024; do
  for lib in A B; do
    awk -F, -v l=$lib -v s=$s '$1 ~ "^"l"-" && $2 == s { print $4 }' "$dir/out.csv" | sort -g |
      awk -v l=$lib -v s=$s '{ v[NR] = $1 } END { printf "%s %5s B: one-way %.3f us, median of %d rounds (%.3f .. %.3f)\n", l, s, v[int((NR + 1) / 2)], NR, v[1], v[NR] }'
  done
  awk -F, -v s=$s '$2 == s { split($1, p, "-r"); t[p[2], p[1]] = $4; r[p[2]] = 1 }
    END { for (k in r) print t[k, "B"] / t[k, "A"] }' "$dir/out.csv" | sort -g |
    awk -v s=$s '{ v[NR] = $1 } END { printf "  %5s B: B/A per round, median %.3f (%.3f .. %.3f)\n", s, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
