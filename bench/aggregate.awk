# aggregate.awk: folds the rows of several measuring rounds into one row per transport and size
# (POSIX awk). Input and output rows: transport,bytes,reps,one_way_us,MBps,one_way_us_min,
# one_way_us_max,MBps_min,MBps_max,runs (the last five may be empty, as raw benchmarks give
# them). Output: the median over the rounds of one_way_us and of MBps, the extremes over every
# trial of every round (over the rounds' figures where a row has no extremes; none for a single
# such row), the largest reps, and in runs the number of rounds. Keys keep their first order.
# Usage: awk -F, -v OFS=, -f aggregate.awk rounds.csv

function median(list, n,    i, j, v, sorted) {
  for (i = 1; i <= n; i++) {
    v = list[i] + 0
    for (j = i; j > 1 && sorted[j - 1] > v; j--) sorted[j] = sorted[j - 1]
    sorted[j] = v
  }
  return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
}
function lower(a, b) { return (a == "" || b + 0 < a + 0) ? b : a }
function higher(a, b) { return (a == "" || b + 0 > a + 0) ? b : a }

NF >= 5 && $2 ~ /^[0-9]+$/ {
  key = $1 SUBSEP $2
  if (!(key in n)) { keys++; key_at[keys] = key; label[key] = $1; size[key] = $2 }
  i = ++n[key]
  us[key, i] = $4; bw[key, i] = $5
  if ($3 + 0 > reps[key] + 0) reps[key] = $3
  if ($6 != "") measured_spread[key] = 1
  usmin[key] = lower(usmin[key], $6 != "" ? $6 : $4)
  usmax[key] = higher(usmax[key], $7 != "" ? $7 : $4)
  bwmin[key] = lower(bwmin[key], $8 != "" ? $8 : $5)
  bwmax[key] = higher(bwmax[key], $9 != "" ? $9 : $5)
}

END {
  print "transport,bytes,reps,one_way_us,MBps,one_way_us_min,one_way_us_max,MBps_min,MBps_max,runs"
  for (k = 1; k <= keys; k++) {
    key = key_at[k]
    for (i = 1; i <= n[key]; i++) { u[i] = us[key, i]; b[i] = bw[key, i] }
    if (n[key] == 1 && !(key in measured_spread)) {   # one figure, no spread known
      printf "%s,%s,%s,%.3f,%.3f,,,,,1\n", label[key], size[key], reps[key], u[1], b[1]
      continue
    }
    printf "%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", label[key], size[key], reps[key],
      median(u, n[key]), median(b, n[key]), usmin[key], usmax[key], bwmin[key], bwmax[key], n[key]
  }
}
