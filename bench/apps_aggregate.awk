# apps_aggregate.awk: folds bench/apps's runs (app,library,hosts,tasks,size,seconds,fabric_cpu,
# team_cpu, one row per run) into one row per configuration: the median seconds and fabric CPU
# share over the rounds, the range of the seconds, the number of runs and the median CPU
# seconds of the application's tasks (POSIX awk). Keys keep the order in which they first appear.
# Usage: awk -F, -v OFS=, -f figures.awk -f apps_aggregate.awk apps-runs.csv

NR > 1 && NF == 8 && $6 ~ /^[0-9.]+$/ {
  key = $1 OFS $2 OFS $3 OFS $4 OFS $5
  if (!(key in n)) order[++keys] = key
  i = ++n[key]
  secs[key, i] = $6; cpu[key, i] = $7; team[key, i] = $8
}

END {
  print "app,library,hosts,tasks,size,seconds,fabric_cpu,seconds_min,seconds_max,runs,team_cpu"
  for (k = 1; k <= keys; k++) {
    key = order[k]
    for (i = 1; i <= n[key]; i++) { s[i] = secs[key, i]; c[i] = cpu[key, i]; u[i] = team[key, i] }
    printf "%s,%.6g,%.4f,%.6g,%.6g,%d,%.4g\n", key, median(s, n[key]), median(c, n[key]),
      lowest(s, n[key]), highest(s, n[key]), n[key], median(u, n[key])
  }
}
