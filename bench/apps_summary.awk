# apps_summary.awk: bench/apps's summary (markdown) from apps.csv (app,library,hosts,tasks,size,
# seconds,fabric_cpu,seconds_min,seconds_max,runs,team_cpu): per application, size and host count
# a row per task count with both libraries' times and spread, AN2's gain over stock, each
# library's speedup over its own one-task run on one host, the fabric's CPU share during the AN2 run
# and the CPU seconds the application's tasks used on each library; then
# the product's goals: no configuration slower on AN2 by more than 5 % beyond the spread of its
# rounds; heat on its smallest grid at least 3x faster from 4 tasks on one host and 2x at 4
# tasks across hosts; the all-to-all at least 2x stock's messages per second from 4 to 32 tasks
# (one host). The all-to-all gets a table of its own: messages per second against tasks.
# Usage: awk -F, -v mode=M -v machine=TEXT -v date=TEXT -v commit=C -v rounds=N -v route=R
#            -v specs="app:size:iters ..." -f apps_summary.awk apps.csv

# the fabric's CPU share of the timed section
function share(c) { return sprintf("%.1f %%", c * 100) }
function fmt(s) { return s < 0.01 ? sprintf("%.5f", s) : s < 1 ? sprintf("%.4f", s) : sprintf("%.3f", s) }

BEGIN {
  n = split(specs, sp, " ")
  for (i = 1; i <= n; i++) { split(sp[i], f, ":"); if (f[1] == "alltoall") a2a_rounds[f[2]] = f[3] }
}

NR > 1 && NF >= 10 && $1 == "alltoall" {
  if (!($5 in a2a_seen)) { a2a_seen[$5] = 1; a2a_sizes[++a2a_nsizes] = $5 }
  if (!(($5, $4) in a2a_tseen)) { a2a_tseen[$5, $4] = 1; a2a_tl[$5] = a2a_tl[$5] " " $4 }
  a2a[$2, $4, $5] = $6; a2a_cpu[$2, $4, $5] = $7; a2a_lo[$2, $4, $5] = $8; a2a_hi[$2, $4, $5] = $9
  next
}

NR > 1 && NF >= 10 {
  key = $1 SUBSEP $3 SUBSEP $5
  if (!(key in seen)) { seen[key] = 1; group[++groups] = key }
  if (!(($1, $3, $5, $4) in tseen)) { tseen[$1, $3, $5, $4] = 1; tlist[key] = tlist[key] " " $4 }
  t[$1, $2, $3, $4, $5] = $6; cpu[$1, $2, $3, $4, $5] = $7
  lo[$1, $2, $3, $4, $5] = $8; hi[$1, $2, $3, $4, $5] = $9; runs[$1, $2, $3, $4, $5] = $10
  team[$1, $2, $3, $4, $5] = $11
  if ($1 == "heat" && (smallest_heat == "" || $5 + 0 < smallest_heat + 0)) smallest_heat = $5
}

END {
  printf "# PVM applications: Debian's libpvm3 against libpvm3-an2\n\n"
  printf "%s, %s mode, medians of %s interleaved round(s) with their range; stock PVM with route %s; commit %s; %s.\n\n",
    date, mode, rounds, route, commit, machine
  printf "Seconds: the master's timed section (from the barrier after set-up to the checked result\n"
  printf "gathered). Speedup: over the same library's one-task run on one host. Fabric CPU: the\n"
  printf "CPU time of the emulated hardware (an2d; across hosts every an2d and the an2switch) over\n"
  printf "the timed section during the AN2 run (100 %% = one core), from /proc/PID/schedstat.\n"
  printf "Tasks' CPU: the CPU seconds all the application's tasks used from the barrier to the end\n"
  printf "of their part (each task's own clock), stock / AN2.\n\n"
  for (g = 1; g <= groups; g++) {
    split(group[g], k, SUBSEP)
    app = k[1]; hosts = k[2]; size = k[3]
    printf "## %s, size %s, %s host%s\n\n", app, size, hosts, hosts == 1 ? "" : "s"
    printf "| tasks | stock (s) | AN2 (s) | AN2 gain | speedup stock | speedup AN2 | fabric CPU | tasks' CPU (s) |\n"
    printf "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    n = split(tlist[group[g]], tl, " ")
    for (i = 1; i <= n; i++) {
      ts = tl[i]
      s = t[app, "stock", hosts, ts, size]; a = t[app, "an2", hosts, ts, size]
      s1 = t[app, "stock", 1, 1, size]; a1 = t[app, "an2", 1, 1, size]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", ts,
        s == "" ? "–" : fmt(s) " (" fmt(lo[app, "stock", hosts, ts, size]) "–" fmt(hi[app, "stock", hosts, ts, size]) ")",
        a == "" ? "–" : fmt(a) " (" fmt(lo[app, "an2", hosts, ts, size]) "–" fmt(hi[app, "an2", hosts, ts, size]) ")",
        (s == "" || a == "" || a <= 0) ? "–" : sprintf("%.2f×", s / a),
        (s == "" || s1 == "" || s <= 0) ? "–" : sprintf("%.2f", s1 / s),
        (a == "" || a1 == "" || a <= 0) ? "–" : sprintf("%.2f", a1 / a),
        a == "" ? "–" : share(cpu[app, "an2", hosts, ts, size]),
        (s == "" ? "–" : fmt(team[app, "stock", hosts, ts, size])) " / " (a == "" ? "–" : fmt(team[app, "an2", hosts, ts, size]))
      if (s != "" && a != "" && a > 0) {
        gain = s / a
        # slower beyond the spread: more than 5 % and AN2's fastest round behind stock's slowest
        if (gain < 1 / 1.05 && lo[app, "an2", hosts, ts, size] > hi[app, "stock", hosts, ts, size])
          slower = slower sprintf("- %s size %s, %s host(s), %s task(s): AN2 %.1f %% slower (%s s against %s s)\n",
            app, size, hosts, ts, (a / s - 1) * 100, fmt(a), fmt(s))
        wanted = (hosts == 1 && ts >= 4) ? 3 : (hosts > 1 && ts == 4) ? 2 : 0
        if (app == "heat" && size == smallest_heat && wanted) {
          checked++
          line = sprintf("- heat size %s, %s host(s), %s tasks: %.2f× (goal %d×)", size, hosts, ts, gain, wanted)
          heat_lines = heat_lines line (gain >= wanted ? ": met\n" : ": **not met**\n")
          if (gain < wanted) missed++
        }
      }
    }
    printf "\n"
  }
  for (z = 1; z <= a2a_nsizes; z++) {
    size = a2a_sizes[z]; r = a2a_rounds[size]
    printf "## All-to-all, %s-byte messages, %s rounds, one host\n\n", size, r
    printf "Every task sends each other task one message per round and checks every one it gets; N\n"
    printf "tasks over AN2 hold N(N-1)/2 VCs.\n\n"
    printf "| tasks | VCs | stock msgs/s | AN2 msgs/s | AN2 gain | stock (s) | AN2 (s) | fabric CPU |\n"
    printf "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    n = split(a2a_tl[size], tl, " ")
    for (i = 1; i <= n; i++) {
      ts = tl[i]; msgs = ts * (ts - 1) * r
      s = a2a["stock", ts, size]; a = a2a["an2", ts, size]
      if (s > 0 && a > 0 && ts >= 4 && ts <= 32) {
        a2a_checked++
        line = sprintf("- %s-byte messages, %s tasks: %.2f×", size, ts, s / a)
        a2a_lines = a2a_lines line (s / a >= 2 ? ": met\n" : ": **not met**\n")
        if (s / a < 2) a2a_missed++
      }
      printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n", ts, ts * (ts - 1) / 2,
        (s > 0 ? sprintf("%.0f", msgs / s) : "–"), (a > 0 ? sprintf("%.0f", msgs / a) : "–"),
        (s > 0 && a > 0) ? sprintf("%.2f×", s / a) : "–",
        s == "" ? "–" : fmt(s) " (" fmt(a2a_lo["stock", ts, size]) "–" fmt(a2a_hi["stock", ts, size]) ")",
        a == "" ? "–" : fmt(a) " (" fmt(a2a_lo["an2", ts, size]) "–" fmt(a2a_hi["an2", ts, size]) ")",
        a == "" ? "–" : share(a2a_cpu["an2", ts, size])
    }
    printf "\n"
  }
  printf "## The product's goals\n\n"
  printf "No configuration slower on AN2 than on stock by more than 5 %% beyond the spread of its rounds: %s\n",
    slower == "" ? "met." : "**not met** in"
  printf "%s\n", slower
  printf "Heat on its smallest grid at least 3× faster on AN2 from 4 tasks on one host, 2× at 4 tasks\n"
  printf "across hosts: %s\n", checked == 0 ? "not measured." : !missed ? "met in all " checked ":" : "**not met** in " missed " of " checked ":"
  printf "%s", heat_lines
  printf "\nThe all-to-all at least 2× stock's messages per second on AN2, from 4 to 32 tasks (one host): %s\n",
    a2a_checked == 0 ? "not measured." : !a2a_missed ? "met in all " a2a_checked ":" : "**not met** in " a2a_missed " of " a2a_checked ":"
  printf "%s", a2a_lines
}
