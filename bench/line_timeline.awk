# line_timeline.awk — bench/compare's line.csv or bench/apps' apps-line.csv (round,label,ns:
# a cache line between the two CPUs, one way, taken before every measurement) as a paragraph:
# its range over the run and the measurements taken while it cost more than three times its
# lowest, the sign of a host that had placed the virtual CPUs far apart (a virtual machine's
# host may do so for seconds at a time, and every figure that moves data between two CPUs
# pays for it: on this project's 2-core machines about 30 ns near, 160-190 ns far).
# With -v counts=1 it prints only "FAR MEASUREMENTS" (bench/spread's per-run count).
NR == 1 { next }
$3 ~ /^[0-9]+$/ {
  n++; ns[n] = $3 + 0; label[n] = $2; round[n] = $1
  if (n == 1 || ns[n] < lo) lo = ns[n]
  if (n == 1 || ns[n] > hi) hi = ns[n]
}
END {
  if (n == 0) exit
  far = ""; nfar = 0
  for (i = 1; i <= n; i++)
    if (ns[i] > 3 * lo) { nfar++; far = far (far == "" ? "" : ", ") label[i] " (round " round[i] ")" }
  if (counts) { print nfar, n; exit }
  printf "\nOne cache line between the two CPUs, taken before each of the run's %d measurements: " \
         "%d–%d ns one way. ", n, lo, hi
  if (nfar == 0)
    printf "None took more than three times the lowest.\n"
  else
    printf "%d of the measurements began while it took more than three times the lowest, the " \
           "host having placed the virtual CPUs farther apart, and their figures pay for it " \
           "wherever data moves between CPUs: %s.\n", nfar, far
}
