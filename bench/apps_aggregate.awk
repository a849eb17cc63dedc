# apps_aggregate.awk: folds bench/apps's runs (app,library,hosts,tasks,size,seconds,an2d_cpu,
# team_cpu, one row per run) into one row per configuration: the median seconds and an2d CPU
# share over the rounds, the range of the seconds, the number of runs and the median CPU
# seconds of the application's tasks (POSIX awk). Keys keep the order in which they first appear.
# Usage: awk -F, -v OFS=, -f apps_aggregate.awk apps-runs.csv

function median(list, n,    i, j, v, sorted) {
  for (i = 1; i <= n; i++) {
    v = list[i] + 0
    for (j = i; j > 1 && sorted[j - 1] > v; j--) sorted[j] = sorted[j - 1]
    sorted[j] = v
  }
  return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
}

NR > 1 && NF == 8 && $6 ~ /^[0-9.]+$/ {
  key = $1 OFS $2 OFS $3 OFS $4 OFS $5
  if (!(key in n)) order[++keys] = key
  i = ++n[key]
  secs[key, i] = $6; cpu[key, i] = $7; team[key, i] = $8
  if (i == 1 || $6 + 0 < low[key]) low[key] = $6 + 0
  if (i == 1 || $6 + 0 > high[key]) high[key] = $6 + 0
}

END {
  print "app,library,hosts,tasks,size,seconds,an2d_cpu,seconds_min,seconds_max,runs,team_cpu"
  for (k = 1; k <= keys; k++) {
    key = order[k]
    for (i = 1; i <= n[key]; i++) { s[i] = secs[key, i]; c[i] = cpu[key, i]; u[i] = team[key, i] }
    printf "%s,%.6g,%.4f,%.6g,%.6g,%d,%.4g\n", key, median(s, n[key]), median(c, n[key]), low[key],
      high[key], n[key], median(u, n[key])
  }
}
