#!/usr/bin/env bash
# plot.sh: draws compare's PNG plots from DIR/results.csv with gnuplot, one curve per transport:
# latency.png and bandwidth.png (main ping-pong rows), variants.png (every pattern and encoding).
# Usage: bench/plot.sh DIR [STATES]   (STATES: compare's name|layer|state|detail|kind list, for order)
# When a transport paced at OC-3c (name containing "oc3") has rows, bandwidth.png also shows the
# link's AAL5 payload capacity for each message size.
set -euo pipefail
out=${1:?usage: plot.sh DIR [STATES]}
states=${2:-}
csv="$out/results.csv"
[ -s "$csv" ] || { echo "plot.sh: no $csv" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/an2-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Labels in the transport list's order, then the variants after their transport.
labels=$(awk -F, 'NR > 1 && $2 ~ /^[0-9]+$/ && !seen[$1]++ { print $1 }' "$csv")
ordered=$(
  { [ -n "$states" ] && awk -F'|' 'NR > 1 { print $1 }' "$states"; } | while read -r name; do
    grep -Fx -- "$name" <<<"$labels" || true
  done
  grep -v / <<<"$labels" || true
)
main=$(awk '!seen[$0]++' <<<"$ordered")
all=$(for m in $main; do grep -Fx -- "$m" <<<"$labels"; grep -F -- "$m/" <<<"$labels" || true; done)
[ -n "$main" ] || { echo "plot.sh: no rows in $csv" >&2; exit 1; }

n=0
for label in $all; do
  n=$((n + 1))
  awk -F, -v label="$label" '$1 == label && $2 ~ /^[0-9]+$/ && $2 > 0 { print $2, $4, $5 }' "$csv" | sort -n >"$work/$n.dat"
  echo "$label" >"$work/$n.name"
done

# curves COLUMN LABEL...: the gnuplot plot clause for these labels; a transport keeps its
# colour in every plot, a pattern or encoding its dash and point type.
curves() {
  local column=$1 i first=1; shift
  for i in $(seq "$n"); do
    local name; name=$(cat "$work/$i.name")
    grep -Fxq -- "$name" <(printf '%s\n' "$@") || continue
    local transport=${name%%/*} variant=${name#"${name%%/*}"}
    local colour; colour=$(grep -Fxn -- "$transport" <<<"$main" | cut -d: -f1)
    local style; style=$(printf '%s\n' "" /inplace /psend /exchange /stream /cold | grep -Fxn -- "$variant" | cut -d: -f1)
    [ $first = 1 ] || printf ', '
    first=0
    local colours=('#1f77b4' '#d62728' '#2ca02c' '#9467bd' '#ff7f0e' '#8c564b' '#e377c2' '#17becf')
    local dashes=(1 2 3 4 5 '(12,4,2,4)')
    printf "'%s' using 1:%s with linespoints lc rgb '%s' dt %s pt %s pointsize 0.7 linewidth 1.5 title '%s'" \
      "$work/$i.dat" "$column" "${colours[$(( (${colour:-1} - 1) % 8 ))]}" "${dashes[$(( ${style:-1} - 1 ))]}" \
      "$(( ${style:-1} + 5 ))" "$name"
  done
}

terminal="pngcairo size 1000,640 font 'DejaVu Sans,10'"
gnuplot -e "set terminal $terminal" >/dev/null 2>&1 || terminal="png size 1000,640"
common="set terminal $terminal
set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set xlabel 'message size (bytes)'
set xtics ('1' 1, '8' 8, '64' 64, '512' 512, '4K' 4096, '32K' 32768, '256K' 262144, '2M' 2097152)
set key outside right top noenhanced
set datafile missing '-'
# OC-3c AAL5 payload capacity (MB/s) of an n-byte message sent as PDUs of at most 65,535 bytes
pdus(n) = floor(n / 65535.0)
rest(n) = n - pdus(n) * 65535
cells(n) = pdus(n) * 1366 + (rest(n) > 0 ? ceil((rest(n) + 8) / 48.0) : 0)
oc3(n) = n / (cells(n) * 48.0) * 353207.5 * 48 / 1e6
set samples 800"
oc3_curve=""
grep -q oc3 <<<"$main" && oc3_curve=", [1:4194304] oc3(x) with lines lc rgb '#888888' dt 2 title 'OC-3c AAL5 payload capacity'"

# shellcheck disable=SC2086  # $main and $all are word lists of labels without spaces
gnuplot 2> >(grep -v '^Warning: empty . range' >&2) <<EOF
$common
set output '$out/latency.png'
set title 'One-way latency (half the ping-pong round trip)'
set ylabel 'one-way latency (µs)'
plot $(curves 2 $main)
set output '$out/bandwidth.png'
set title 'Ping-pong bandwidth'
set ylabel 'bandwidth (MB/s, 10^6 bytes)'
set key outside right top
plot $(curves 3 $main)$oc3_curve
set output '$out/variants.png'
set title 'Bandwidth of every pattern and encoding (exchange counts both directions)'
plot $(curves 3 $all)
EOF
