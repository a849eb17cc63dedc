# aggregate.awk: folds the rows of several measuring rounds into one row per transport and size
# (POSIX awk). Input and output rows: transport,bytes,reps,one_way_us,MBps,one_way_us_min,
# one_way_us_max,MBps_min,MBps_max,runs (the last five may be empty, as raw benchmarks give
# them). The spread always belongs to the figures whose median is reported: with several rounds
# the output holds the median of the rounds' figures and their range; with one round, the row
# as it is (the median of its trials and their range). reps: the largest; runs: the number of
# figures behind the median. Keys keep the order in which they first appear. Figures keep six
# significant digits, so that a small positive one never prints as 0.
# Usage: awk -F, -v OFS=, -f figures.awk -f aggregate.awk rounds.csv


NF >= 5 && $2 ~ /^[0-9]+$/ {
  key = $1 SUBSEP $2
  if (!(key in n)) { keys++; key_at[keys] = key; first_row[key] = $0 }
  i = ++n[key]
  us[key, i] = $4; bw[key, i] = $5
  if ($3 + 0 > reps[key] + 0) reps[key] = $3
}

END {
  print "transport,bytes,reps,one_way_us,MBps,one_way_us_min,one_way_us_max,MBps_min,MBps_max,runs"
  for (k = 1; k <= keys; k++) {
    key = key_at[k]
    if (n[key] == 1) {   # one round: its row, padded to ten columns
      split(first_row[key], f, ",")
      printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10]
      continue
    }
    for (i = 1; i <= n[key]; i++) { u[i] = us[key, i]; b[i] = bw[key, i] }
    split(key, parts, SUBSEP)
    printf "%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n", parts[1], parts[2], reps[key],
      median(u, n[key]), median(b, n[key]), lowest(u, n[key]), highest(u, n[key]),
      lowest(b, n[key]), highest(b, n[key]), n[key]
  }
}
