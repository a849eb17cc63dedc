#!/usr/bin/env bash
# plot.sh: draws compare's PNG plots from DIR/results.csv with gnuplot, one panel per question
# (bench/panels.txt: one host, two hosts, paced at OC-3c, the raw layer, bit errors), each with
# latency and bandwidth side by side and AN2 and its stock counterpart in one colour (AN2
# solid, stock dashed); others.png for transports no panel names; variants.png (every pattern
# and encoding of PVM over AN2 and stock direct, one host); physics.png (the one-host latencies
# against this machine's costs of waiting, from DIR/physics.md). A panel without rows is not
# drawn. Usage: bench/plot.sh DIR [STATES] [PANELS]   (STATES is accepted and not needed)
set -euo pipefail
out=${1:?usage: plot.sh DIR [STATES] [PANELS]}
panels=${3:-$(dirname "${BASH_SOURCE[0]}")/panels.txt}
csv="$out/results.csv"
[ -s "$csv" ] || { echo "plot.sh: no $csv" >&2; exit 1; }
[ -r "$panels" ] || { echo "plot.sh: cannot read $panels" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/an2-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One data file per label (size, one-way us, MB/s), named by its line in labels.
awk -F, 'NR > 1 && $2 ~ /^[0-9]+$/ && !seen[$1]++ { print $1 }' "$csv" >"$work/labels"
[ -s "$work/labels" ] || { echo "plot.sh: no rows in $csv" >&2; exit 1; }
n=0
while read -r label; do
  n=$((n + 1))
  awk -F, -v label="$label" '$1 == label && $2 > 0 { print $2, $4, $5 }' "$csv" | sort -n >"$work/$n.dat"
done <"$work/labels"
data_of() { local i; i=$(grep -Fxn -- "$1" "$work/labels" | cut -d: -f1); [ -n "$i" ] && echo "$work/$i.dat"; }
dash_of() { case $1 in dashed) echo 2 ;; dotted) echo 3 ;; *) echo 1 ;; esac; }

terminal="pngcairo size 1400,560 font 'DejaVu Sans,10'"
gnuplot -e "set terminal $terminal" >/dev/null 2>&1 || terminal="png size 1400,560"
common="set terminal $terminal
set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set xlabel 'message size (bytes)'
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '2M' 2097152)
set key top left noenhanced box opaque
set datafile missing '-'
# OC-3c AAL5 payload capacity (MB/s) of an n-byte message sent as PDUs of at most 65,535 bytes
pdus(n) = floor(n / 65535.0)
rest(n) = n - pdus(n) * 65535
cells(n) = pdus(n) * 1366 + (rest(n) > 0 ? ceil((rest(n) + 8) / 48.0) : 0)
oc3(n) = n / (cells(n) * 48.0) * 353207.5 * 48 / 1e6
set samples 800"

# draw FILE TITLE EXTRA_BANDWIDTH_CURVE < series lines (TRANSPORT|COLOUR|DASH|KEY): latency
# left, bandwidth right; nothing is drawn when no series has rows.
draw() {
  local file=$1 title=$2 extra=$3 transport colour dash key data curves=""
  while IFS='|' read -r transport colour dash key; do
    data=$(data_of "$transport") || continue
    [ -s "$data" ] || continue
    curves+="${curves:+, }'$data' using 1:COLUMN with linespoints lc rgb '$colour' dt $(dash_of "$dash") pt 7 pointsize 0.5 linewidth 2 title '$key'"
  done
  [ -n "$curves" ] || return 0
  gnuplot 2> >(grep -v '^Warning: empty . range' >&2) <<EOF
$common
set output '$out/$file'
set multiplot layout 1,2 title '$title' font ',13'
set title 'one-way latency (half the round trip)'
set ylabel 'µs'
plot ${curves//COLUMN/2}
set title 'bandwidth'
set ylabel 'MB/s (10^6 bytes)'
set key bottom right
plot ${curves//COLUMN/3}$extra
unset multiplot
EOF
}

# The panels of the list, and which transports they name.
trim() { sed 's/^ *//; s/ *$//; s/ *| */|/g'; }
grep -v '^ *#' "$panels" | grep -v '^ *$' | trim >"$work/panels"
awk -F'|' '$1 == "series" { print $2 }' "$work/panels" | sort -u >"$work/named"
awk -F'|' '$1 == "panel" { n++ } { print > (dir "/panel." n) }' dir="$work" "$work/panels"
for spec in "$work"/panel.*; do
  IFS='|' read -r _ file title < <(head -n 1 "$spec")
  extra=""
  [ "$file" = oc3.png ] && extra=", [1:4194304] oc3(x) with lines lc rgb '#444444' dt 4 linewidth 1.5 title 'OC-3c AAL5 payload capacity'"
  awk -F'|' '$1 == "series" { print $2 "|" $3 "|" $4 "|" $5 }' "$spec" | draw "$file" "$title" "$extra"
done

# Every transport that no panel names (a list of one's own, say), in colours of its own.
colours=('#1f77b4' '#d62728' '#2ca02c' '#9467bd' '#ff7f0e' '#8c564b' '#e377c2' '#17becf')
{ grep -v / "$work/labels" | grep -Fxv -f "$work/named" || true; } | awk -v c="${colours[*]}" '
  BEGIN { split(c, colour, " ") } { print $0 "|" colour[(NR - 1) % 8 + 1] "|solid|" $0 }' |
  draw others.png "Transports outside the panels" ""

# Patterns and encodings, one host: a colour per variant, AN2 solid and stock dashed.
for base in pvm-an2 pvm-direct; do
  dash=solid; [ $base = pvm-direct ] && dash=dashed
  i=0
  for variant in "" /inplace /psend /exchange /stream /cold; do
    echo "$base$variant|${colours[$i]}|$dash|$base${variant:- (raw ping-pong)}"
    i=$((i + 1))
  done
done | draw variants.png "Every pattern and encoding on one host (exchange counts both directions)" ""

# The one-host latencies against the machine's own costs of waiting (physics.md's rows).
if [ -s "$out/physics.md" ]; then
  lines=$(awk -F'|' '
    function us(v) { return v ~ /µs/ ? v + 0 : -1 }
    $2 ~ /system call/ { c[1] = us($3) } $2 ~ /sched_yield/ { c[2] = us($3) }
    $2 ~ /cache line/ { c[3] = us($3) } $2 ~ /futex/ { c[4] = us($3) }
    $2 ~ /context switch/ { c[5] = us($3) }
    END { split("a system call|a sched_yield|a cache line between cores|a futex wake-up|a context switch", name, "|")
          split("#2ca02c #ff7f0e #9467bd #d62728 #8c564b", col, " ")
          for (k = 1; k <= 5; k++) if (c[k] > 0)
            printf ", %s with lines lc rgb \"%s\" dt 2 linewidth 1.5 title \"%s (%.2f µs)\"", c[k], col[k], name[k], c[k] }' "$out/physics.md")
  if [ -n "$lines" ]; then
    curves=""
    for spec in "pvm-an2|#1f77b4|1|PVM over AN2" "pvm-direct|#1f77b4|2|stock PVM, direct TCP route"; do
      IFS='|' read -r transport colour dash key <<<"$spec"
      data=$(data_of "$transport") || continue
      curves+="${curves:+, }'$data' using 1:2 with linespoints lc rgb '$colour' dt $dash pt 7 pointsize 0.5 linewidth 2 title '$key'"
    done
    if [ -n "$curves" ]; then
      gnuplot 2> >(grep -v '^Warning: empty . range' >&2) <<EOF
$common
set terminal ${terminal/1400,560/900,560}
set output '$out/physics.png'
set title "One host, against this machine's costs of waiting"
set ylabel 'one-way latency (µs)'
set xrange [1:4194304]
plot $curves$lines
EOF
    fi
  fi
fi
