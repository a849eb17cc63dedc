#!/usr/bin/env bash
# apps_plot.sh: bench/apps's plots from DIR/apps.csv with gnuplot: apps-speedup.png (speedup over
# one task against the task count, one panel per application, one host, each library at each
# size) and apps-time.png (seconds against problem size at 4 tasks on one host, log scales).
# Log scales: a speedup of 0.02 (communication-bound on one task's worth of work) and one of 2
# both show. Usage: bench/apps_plot.sh DIR
set -euo pipefail
out=${1:?usage: apps_plot.sh DIR}
csv="$out/apps.csv"
[ -s "$csv" ] || { echo "apps_plot.sh: no $csv" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/an2-appsplot.XXXXXX")
trap 'rm -rf "$work"' EXIT

# (the all-to-all has its own table in apps.md: a scaling test, not an application)
apps=$(awk -F, 'NR > 1 && $1 != "alltoall" && !seen[$1]++ { print $1 }' "$csv")
# (only the all-to-all, as with --only alltoall: nothing to draw, which is no failure)
[ -n "$apps" ] || { echo "apps_plot.sh: only the all-to-all in $csv: no plots"; exit 0; }
cores=$(nproc)
terminal="pngcairo size 1100,800 font 'DejaVu Sans,10'"
gnuplot -e "set terminal $terminal" >/dev/null 2>&1 || terminal="png size 1100,800"
colours=('#1f77b4' '#d62728')
speedup="" timing=""
for app in $apps; do
  # speedup: one file per library and size, "tasks speedup"
  clauses="" n=0
  for lib in stock an2; do
    for size in $(awk -F, -v a="$app" -v l="$lib" '$1 == a && $2 == l && $3 == 1 && !s[$5]++ { print $5 }' "$csv"); do
      f="$work/s-$app-$lib-$size.dat"
      awk -F, -v a="$app" -v l="$lib" -v z="$size" '
        $1 == a && $2 == l && $3 == 1 && $5 == z { t[$4] = $6; if ($4 == 1) base = $6 }
        END { if (base > 0) for (k in t) print k, base / t[k] }' "$csv" | sort -n >"$f"
      [ -s "$f" ] || continue
      colour=${colours[0]}; [ "$lib" = an2 ] && colour=${colours[1]}
      n=$((n + 1))
      clauses+="${clauses:+, }'$f' using 1:2 with linespoints lc rgb '$colour' dt $n pt $((n + 5)) lw 1.5 title '$lib, size $size'"
    done
  done
  [ -n "$clauses" ] && speedup+="set title '$app: speedup over one task (one host)'
plot $clauses, (x < $cores ? x : $cores) with lines lc rgb '#aaaaaa' dt 3 title 'ideal on $cores cores'
"
  clauses=""
  for lib in stock an2; do
    f="$work/t-$app-$lib.dat"
    awk -F, -v a="$app" -v l="$lib" '$1 == a && $2 == l && $3 == 1 && $4 == 4 { print $5, $6 }' "$csv" | sort -n >"$f"
    [ -s "$f" ] || continue
    colour=${colours[0]}; [ "$lib" = an2 ] && colour=${colours[1]}
    clauses+="${clauses:+, }'$f' using 1:2 with linespoints lc rgb '$colour' pt 7 lw 1.5 title '$lib'"
  done
  [ -n "$clauses" ] && timing+="set title '$app: seconds at 4 tasks (one host)'
plot $clauses
"
done
count=$(wc -w <<<"$apps")
rows=$(( (count + 1) / 2 ))
gnuplot <<GNUPLOT
set terminal $terminal
set grid lc rgb '#dddddd'
set key top left noenhanced
set output '$out/apps-speedup.png'
set multiplot layout $rows,2
set xlabel 'tasks'
set ylabel 'speedup'
set xrange [0.9:9]
set xtics (1, 2, 4, 8)
set logscale xy
set ytics (0.01, 0.03, 0.1, 0.3, 1, 2, 4, 8)
$speedup
unset multiplot
set output '$out/apps-time.png'
set multiplot layout $rows,2
set xlabel 'problem size'
set ylabel 'seconds'
set autoscale
set logscale xy
set xtics auto
set ytics auto
$timing
unset multiplot
GNUPLOT
