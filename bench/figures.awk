# figures.awk: the median and the range of a list of figures, for the scripts that fold
# measuring rounds (aggregate.awk, apps_aggregate.awk; POSIX awk: give it first with -f).
function median(list, n,    i, j, v, sorted) {
  for (i = 1; i <= n; i++) {
    v = list[i] + 0
    for (j = i; j > 1 && sorted[j - 1] > v; j--) sorted[j] = sorted[j - 1]
    sorted[j] = v
  }
  return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
}
function lowest(list, n,    i, v) { v = list[1]; for (i = 2; i <= n; i++) if (list[i] + 0 < v + 0) v = list[i]; return v }
function highest(list, n,    i, v) { v = list[1]; for (i = 2; i <= n; i++) if (list[i] + 0 > v + 0) v = list[i]; return v }
