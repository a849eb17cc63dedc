# summary.awk: turns compare's transport states and results.csv into summary.md (POSIX awk).
# Usage: awk -F, -v mode=M -v machine=TEXT -v date=TEXT -v commit=C -v rounds=R -v trials=T
#            [-v an2=pvm-an2] [-v tcp=pvm-direct] -f summary.awk STATES results.csv
# STATES holds "name|layer|state|detail|kind" lines (kind: pvm or raw) in protocol-hierarchy order.

function fmt(v) {
  if (v == "") return "–"
  if (v >= 100) return sprintf("%.0f", v)
  if (v >= 10) return sprintf("%.1f", v)
  return sprintf("%.2f", v)
}
function bytes_text(b) {
  if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) " MiB"
  if (b >= 1024 && b % 1024 == 0) return (b / 1024) " KiB"
  return sprintf("%.0f B", b)
}
# Half the min-max range of the runs relative to the median, in percent; "" without spread.
function spread(label, b,    lo, hi) {
  lo = usmin[label, b]; hi = usmax[label, b]
  if (lo == "" || hi == "" || us[label, b] <= 0) return ""
  return sprintf(" ±%.0f%%", 50 * (hi - lo) / us[label, b])
}
# The measured size nearest to b (by absolute difference) within tolerance bytes; "" if none.
function nearest(label, b, tolerance,    i, s, best) {
  if ((label, b) in us) return b
  best = ""
  for (i = 1; i <= count[label]; i++) {
    s = size[label, i]
    if ((s - b) ^ 2 <= tolerance ^ 2 && (best == "" || (s - b) ^ 2 < (best - b) ^ 2)) best = s
  }
  return best
}
# Latency at b bytes, else at the nearest measured size, named.
function latency_cell(label, b,    s) {
  s = nearest(label, b, 1e12)
  if (s == "") return "–"
  return fmt(us[label, s]) spread(label, s) (s == b ? "" : " (" bytes_text(s) ")")
}
# Bandwidth at b bytes, else at a measured size within 1%, named.
function bandwidth_cell(label, b,    s) {
  s = nearest(label, b, b / 100)
  if (s == "") return "–"
  return fmt(bw[label, s]) spread(label, s) (s == b ? "" : " (" bytes_text(s) ")")
}
function peak(label,    i, best) {
  best = ""
  for (i = 1; i <= count[label]; i++)
    if (best == "" || bw[label, size[label, i]] > bw[label, best]) best = size[label, i]
  return best
}
# Message size at which the bandwidth first reaches half its peak, interpolated on log size.
function half_bandwidth(label,    top, half, i, s0, s1, b0, b1) {
  top = peak(label)
  if (top == "") return "–"
  half = bw[label, top] / 2
  s0 = 0
  for (i = 1; i <= count[label]; i++) {
    s1 = size[label, i]; b1 = bw[label, s1]
    if (s1 == 0) continue
    if (b1 >= half) {
      if (s0 == 0) return "≤ " s1
      b0 = bw[label, s0]
      return sprintf("%.0f", exp(log(s0) + (half - b0) / (b1 - b0) * (log(s1) - log(s0))))
    }
    s0 = s1
  }
  return "–"
}
# OC-3c AAL5 payload capacity for a message of n bytes sent as PDUs of at most 65,535 bytes:
# 353,207.5 cells/s, 48 payload bytes per cell, 8-byte trailer and padding per PDU.
function oc3_capacity(n,    full, rest, cells) {
  full = int(n / 65535); rest = n - full * 65535
  cells = full * 1366 + (rest > 0 ? int((rest + 8 + 47) / 48) : 0)
  return n / (cells * 48) * 353207.5 * 48 / 1e6
}
# "AN2 / TCP" figures and their ratio (TCP/AN2 for latency, AN2/TCP for bandwidth) at size b.
function ratio_cells(a_label, t_label, b, is_latency,    a, t) {
  if (is_latency) {
    if (!((a_label, b) in us) || !((t_label, b) in us)) return "– | –"
    a = us[a_label, b]; t = us[t_label, b]
    ratio[b] = t / a
    return fmt(a) " / " fmt(t) " | " sprintf("%.2f×", t / a)
  }
  if (!((a_label, b) in bw) || !((t_label, b) in bw)) return "– | –"
  a = bw[a_label, b]; t = bw[t_label, b]
  ratio[b] = a / t
  return fmt(a) " / " fmt(t) " | " sprintf("%.2f×", a / t)
}

# The product's goals, a row each: the figure of this run and whether it meets the goal. A goal
# whose transports were not in this run is left out; one whose figure is missing says so.
function goal_row(text, figure, ok, labels,    n, l, i, listed) {
  n = split(labels, l, " ")
  for (i = 1; i <= n; i++) if (l[i] in tstate) listed = 1
  if (!listed) return
  if (!goals++) {
    print "## The product's goals\n"
    print "| goal | this run | met? |"
    print "| --- | --- | --- |"
  }
  printf "| %s | %s | %s |\n", text, figure == "" ? "not measured" : figure,
    figure == "" ? "–" : ok ? "met" : "**not met**"
}
function lat(label, b) { return ((label, b) in us) ? us[label, b] : "" }
function bwat(label, b,    s) { s = nearest(label, b, b / 100); return s == "" ? "" : bw[label, s] }
# "A / B unit: R×" for a goal on the ratio R of two figures; "" when either is missing
function pair(a, b, unit, r) { return a == "" || b == "" ? "" : sprintf("%s / %s %s: %.2f×", fmt(a), fmt(b), unit, r) }
# The goals of the product: PVM over AN2 against stock's direct route, and the raw layer under
# it, on one host and across two hosts (one switch, unpaced); paced runs are judged in their
# own table.
function goals_table(    a, t, x, y) {
  a = lat(an2, 8); t = lat(tcp, 8)
  goal_row("one host: PVM over AN2's 8-byte one-way time at least 5× below stock's direct route",
       pair(a, t, "µs", a ? t / a : 0), a && t >= 5 * a, an2)
  goal_row("one host: PVM over AN2's 8-byte one-way time at most 3 µs", a == "" ? "" : fmt(a) " µs", a <= 3, an2)
  a = bwat(an2, 65536); t = bwat(tcp, 65536)
  goal_row("one host: PVM over AN2's 64 KiB bandwidth at least 2× stock's direct route",
       pair(a, t, "MB/s", t ? a / t : 0), a >= 2 * t, an2)
  a = bwat(an2, 4194304); t = bwat(tcp, 4194304)
  goal_row("one host: PVM over AN2's 4 MiB bandwidth at least 1.3× stock's direct route",
       pair(a, t, "MB/s", t ? a / t : 0), a >= 1.3 * t, an2)
  a = lat("raw-aal5", 40)
  goal_row("one host: raw AAL5 40-byte one-way time at most 3 µs", a == "" ? "" : fmt(a) " µs", a <= 3, "raw-aal5")
  a = bwat("raw-aal5", 65535)
  goal_row("one host: raw AAL5 streaming of 64 KiB PDUs at least 2,000 MB/s", a == "" ? "" : fmt(a) " MB/s",
       a >= 2000, "raw-aal5")
  x = "pvm-an2-2hosts"; y = "pvm-direct-2hosts"
  a = lat(x, 8); t = lat(y, 8)
  goal_row("two hosts: PVM over AN2's 8-byte one-way time at least 2× below stock's direct route (aim 3×)",
       pair(a, t, "µs", a ? t / a : 0), a && t >= 2 * a, x)
  a = bwat(x, 65536); t = bwat(y, 65536)
  goal_row("two hosts: PVM over AN2's 64 KiB bandwidth at least 3× stock's direct route",
       pair(a, t, "MB/s", t ? a / t : 0), a >= 3 * t, x)
  a = bwat(x, 4194304); t = bwat(y, 4194304)
  goal_row("two hosts: PVM over AN2's 4 MiB bandwidth at least 3× stock's direct route",
       pair(a, t, "MB/s", t ? a / t : 0), a >= 3 * t, x)
  # (the links in shared memory, as scripts/cluster.sh joins its hosts)
  x = "raw-aal5-1sw-shm"
  a = lat(x, 0); t = lat("raw-aal5", 0)
  goal_row("two hosts: raw AAL5 0-byte one-way time through one switch at most 3× one host's",
       pair(a, t, "µs", t ? a / t : 0), t && a <= 3 * t, x)
  a = bwat(x, 65535); t = bwat("tcp-veth", 65536)
  goal_row("two hosts: raw AAL5 streaming of 64 KiB through one switch at least half of plain TCP on the same veths (aim: above it)",
       pair(a, t, "MB/s", t ? a / t : 0), t && a >= t / 2, x)
  if (goals) print ""
}

BEGIN { if (an2 == "") an2 = "pvm-an2"; if (tcp == "") tcp = "pvm-direct" }

FNR == NR {
  if (FNR == 1) next
  n = split($0, f, "|")
  states++; tname[states] = f[1]; tlayer[f[1]] = f[2]; tstate[f[1]] = f[3]; tdetail[f[1]] = f[4]; tkind[f[1]] = f[5]
  next
}
FNR == 1 { next }
$2 ~ /^[0-9]+$/ && $4 > 0 {
  label = $1; b = $2 + 0
  if (!(label in count)) { labels++; label_at[labels] = label; count[label] = 0 }
  if (!((label, b) in us)) {
    # insertion into the label's ascending size list
    i = ++count[label]
    while (i > 1 && size[label, i - 1] > b) { size[label, i] = size[label, i - 1]; i-- }
    size[label, i] = b
  }
  us[label, b] = $4; bw[label, b] = $5; reps[label, b] = $3; usmin[label, b] = $6; usmax[label, b] = $7
}

END {
  printf "# PVM over AN2 against TCP PVM: %s run\n\n", mode
  printf "- **Date:** %s\n- **Machine:** %s\n- **Commit:** %s\n", date, machine, commit
  printf "- **Method:** one-way latency is half the ping-pong round trip (hot cache unless marked cold, PvmDataRaw, "
  printf "pvm_send/pvm_recv, message content verified on the first exchange of every trial); bandwidth "
  printf "is bytes per one-way time, MB = 10^6 bytes. Every transport is measured in %s round(s), ", rounds == "" ? "several" : rounds
  printf "interleaved with the other transports, each timing every size in %s trials; figures are ", trials == "" ? "several" : trials
  printf "the median over the rounds of each round's median, and ± is half the min–max range of "
  printf "the rounds' medians (with one round: of its trials) relative to that median. The machine "
  printf "is shared and noisy: compare transports as ratios within one run.\n\n"

  goals_table()
  print "## Protocol hierarchy (in the style of ParaStation's Table 3)\n"
  print "| protocol layer | transport | latency 8 B (µs) | bandwidth 64 KiB (MB/s) | bandwidth 4 MiB (MB/s) | peak (MB/s) | n½ (bytes) |"
  print "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
  for (t = 1; t <= states; t++) {
    name = tname[t]
    if (tstate[name] == "skipped" || count[name] == 0) {
      printf "| %s | %s | %s: %s | | | | |\n", tlayer[name], name, tstate[name], tdetail[name]
      continue
    }
    top = peak(name)
    printf "| %s | %s | %s | %s | %s | %s at %s | %s |\n", tlayer[name], name, latency_cell(name, 8),
      bandwidth_cell(name, 65536), bandwidth_cell(name, 4194304), fmt(bw[name, top]), bytes_text(top),
      half_bandwidth(name)
  }

  printf "\n## AN2 against TCP: %s vs %s\n\n", an2, tcp
  if (count[an2] == 0 || count[tcp] == 0) {
    printf "Not available in this run (%s: %s, %s: %s).\n", an2, tstate[an2] == "" ? "not listed" : tstate[an2],
      tcp, tstate[tcp] == "" ? "not listed" : tstate[tcp]
  } else {
    print "| pattern | latency 8 B, AN2 / TCP (µs) | AN2 faster by | bandwidth 64 KiB, AN2 / TCP (MB/s) | AN2/TCP | bandwidth 4 MiB, AN2 / TCP (MB/s) | AN2/TCP |"
    print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    nv = split("|/inplace|/psend|/exchange|/stream|/cold", suffix, "|")
    split("ping-pong, PvmDataRaw|ping-pong, PvmDataInPlace|ping-pong, pvm_psend/pvm_precv|pairwise exchange, PvmDataRaw|streaming, PvmDataRaw|ping-pong, PvmDataRaw, cold cache", title, "|")
    for (v = 1; v <= nv; v++) {
      if (count[an2 suffix[v]] == 0 || count[tcp suffix[v]] == 0) continue
      printf "| %s | %s | %s | %s |\n", title[v], ratio_cells(an2 suffix[v], tcp suffix[v], 8, 1),
        ratio_cells(an2 suffix[v], tcp suffix[v], 65536, 0), ratio_cells(an2 suffix[v], tcp suffix[v], 4194304, 0)
    }
    delete ratio
    unused = ratio_cells(an2, tcp, 8, 1) ratio_cells(an2, tcp, 65536, 0) ratio_cells(an2, tcp, 4194304, 0)
    printf "\n%s is libpvm3-an2 with its default rule: AN2 VCs between its tasks (PVM_AN2=off or PvmDontRoute would take the daemon route).\n", an2
  }

  oc3 = 0
  for (t = 1; t <= states; t++) if (tname[t] ~ /oc3/ && count[tname[t]] > 0) oc3++
  if (oc3) {
    print "\n## Paced at OC-3c: goodput against the link's AAL5 payload capacity\n"
    print "Capacity: 353,207.5 cells/s × 48 bytes, less each PDU's pad and 8-byte trailer (PDUs of at most 65,535 bytes).\n"
    print "| transport | size | goodput (MB/s) | capacity (MB/s) | share | target | met? |"
    print "| --- | ---: | ---: | ---: | ---: | --- | --- |"
    for (t = 1; t <= states; t++) {
      name = tname[t]
      # stock PVM's share of a shaped veth is in the cross-host table, against TCP's capacity
      if (name !~ /oc3/ || name ~ /^pvm-direct/ || count[name] == 0) continue
      # a streaming transport of its own (name/stream) stands in its base's row
      slash = index(name, "/")
      if (slash && count[substr(name, 1, slash - 1)] > 0) continue
      label = (count[name "/stream"] > 0) ? name "/stream" : name
      # PVM over AN2: 97 %, raw AAL5: 99 %; stock PVM has no target here (TCP's own share of
      # the same line is in the cross-host table)
      wanted = name ~ /^pvm-an2/ ? 97 : name ~ /^raw-/ ? 99 : 0
      for (i = 1; i <= count[label]; i++) {
        b = size[label, i]
        # the first size of at least one full PDU, and the largest
        if (!((b >= 65535 && !shown[label]++) || i == count[label])) continue
        share = 100 * bw[label, b] / oc3_capacity(b)
        printf "| %s | %s | %s | %s | %.1f%% | %s | %s |\n", label, bytes_text(b), fmt(bw[label, b]),
          fmt(oc3_capacity(b)), share, (wanted ? "≥ " wanted "%" : "–"),
          (!wanted ? "–" : share >= wanted ? "yes" : "no")
      }
    }
  }

  # Under injected bit errors (transports named an2 ... -berX): goodput against the clean run
  # of the same library (the ping-pong, PvmDataRaw), repaired by retransmission.
  nber = 0
  for (t = 1; t <= states; t++) if (tname[t] ~ /-ber/ && count[tname[t]] > 0) nber++
  if (nber && count[an2] > 0) {
    print "\n## Under bit errors: goodput against the clean run\n"
    printf "an2d damages each payload bit with the given probability; the library repairs it (selective repeat). Clean: %s in the same run.\n\n", an2
    print "| transport | size | goodput (MB/s) | clean (MB/s) | share | target | met? |"
    print "| --- | ---: | ---: | ---: | ---: | --- | --- |"
    for (t = 1; t <= states; t++) {
      name = tname[t]
      if (name !~ /-ber/ || count[name] == 0) continue
      for (i = 1; i <= 2; i++) {
        b = (i == 1) ? 65536 : 4194304
        if (!((name, b) in bw) || !((an2, b) in bw) || bw[an2, b] <= 0) continue
        share = 100 * bw[name, b] / bw[an2, b]
        goal = (name ~ /ber1e-7$/ && b == 65536) ? "≥ 90%" : "–"
        met = goal == "–" ? "–" : (share >= 90 ? "yes" : "no")
        printf "| %s | %s | %s | %s | %.1f%% | %s | %s |\n", name, bytes_text(b), fmt(bw[name, b]),
          fmt(bw[an2, b]), share, goal, met
      }
    }
  }

  # Across two emulated hosts (transports ending in -2hosts): PVM over AN2 through one switch
  # against stock PVM's direct route (TCP over the veth) and its daemon route (UDP).
  x_an2 = "pvm-an2-2hosts"; x_tcp = "pvm-direct-2hosts"; x_dmn = "pvm-daemon-2hosts"
  # the paced rows: ping-pong, then streaming
  npx = split(x_an2 "-oc3|" x_tcp "-oc3|" x_an2 "-oc3/stream|" x_tcp "-oc3/stream", prow, "|")
  px = 0
  for (j = 1; j <= npx; j++) px += count[prow[j]]
  if (count[x_an2] + count[x_tcp] + px > 0) {
    print "\n## Across two hosts: PVM over AN2 against TCP PVM\n"
    print "Two emulated hosts (network namespaces joined by veths), stock pvmd on each; AN2 through one an2switch, its links in shared memory (`-tcp`, `raw-aal5-1sw`: over TCP on the same veths; `-ofi`: over libfabric's tcp provider on them).\n"
    nx = split(x_an2 "|" x_an2 "-tcp|" x_an2 "-ofi|" x_tcp "|" x_dmn "|raw-aal5-1sw-shm|raw-aal5-1sw|raw-aal5-1sw-ofi|tcp-veth", xrow, "|")
    for (i = 1; i <= nx; i++) {
      if (count[xrow[i]] == 0) continue
      if (!xhead++) {
        print "| transport | latency 8 B (µs) | bandwidth 64 KiB (MB/s) | bandwidth 4 MiB (MB/s) |"
        print "| --- | ---: | ---: | ---: |"
      }
      printf "| %s | %s | %s | %s |\n", xrow[i], latency_cell(xrow[i], 8), bandwidth_cell(xrow[i], 65536),
        bandwidth_cell(xrow[i], 4194304)
    }
    if (count[x_an2] > 0 && count[x_tcp] > 0) {
      delete ratio
      print "\n| ping-pong, PvmDataRaw | latency 8 B, AN2 / direct (µs) | AN2 faster by | 64 KiB, AN2 / direct (MB/s) | AN2/direct | 4 MiB, AN2 / direct (MB/s) | AN2/direct |"
      print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
      printf "| %s vs %s | %s | %s | %s |\n", x_an2, x_tcp, ratio_cells(x_an2, x_tcp, 8, 1),
        ratio_cells(x_an2, x_tcp, 65536, 0), ratio_cells(x_an2, x_tcp, 4194304, 0)
    }
    # paced: each one's goodput against the line (OC-3c's SONET payload, 149.76 Mb/s) and
    # against its own protocol's capacity (AAL5 payload; TCP payload of the shaped frames)
    if (px) {
      print "\n**At OC-3c** (AN2 links paced; for stock PVM the veths shaped with tc tbf to 149.76 Mb/s, which counts whole Ethernet frames: a TCP segment carries 1,448 of every 1,514 bytes):\n"
      print "| transport | pattern | size | goodput (MB/s) | of the line (18.72 MB/s) | of its protocol's capacity |"
      print "| --- | --- | ---: | ---: | ---: | ---: |"
      # streaming is the goodput; the ping-pong adds each message's trip through the path
      for (j = 1; j <= npx; j++) {
        name = prow[j]; is_an2 = index(name, x_an2) == 1; stream = name ~ /\/stream$/
        if (count[name] == 0) continue
        for (k = 1; k <= 2; k++) {
          b = nearest(name, k == 1 ? 65536 : 4194304, 1e12)
          if (b == "") continue
          cap = is_an2 ? oc3_capacity(b) : 18.72 * 1448 / 1514
          over = bw[name, b] > 18.72
          burst += over
          printf "| %s | %s | %s | %s%s | %.1f%% | %.1f%% (%s MB/s) |\n", name, (stream ? "stream" : "ping-pong"),
            bytes_text(b), fmt(bw[name, b]), (over ? "\\*" : ""), 100 * bw[name, b] / 18.72,
            100 * bw[name, b] / cap, fmt(cap)
        }
      }
      if (burst)
        print "\n\\* above the line rate: tbf lets a burst (32 KB) through at the veth's own speed, so a ping-pong of short messages is not held to the rate; streaming shows it."
    }
  }

  print "\n## Every measured row: patterns and encodings\n"
  print "`/inplace`: PvmDataInPlace; `/psend`: pvm_psend/pvm_precv; `/exchange`: pairwise exchange (both send, then both receive; time per iteration, bandwidth counts both directions); `/stream`: one-way streaming (time per message); `/cold`: ping-pong with both tasks' buffers evicted from the caches before each exchange (GAMMA's cold cache).\n"
  print "| transport | sizes | latency 8 B (µs) | bandwidth 64 KiB (MB/s) | bandwidth 4 MiB (MB/s) | peak (MB/s) | n½ (bytes) |"
  print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for (l = 1; l <= labels; l++) {
    label = label_at[l]; top = peak(label)
    printf "| %s | %d | %s | %s | %s | %s at %s | %s |\n", label, count[label], latency_cell(label, 8),
      bandwidth_cell(label, 65536), bandwidth_cell(label, 4194304), fmt(bw[label, top]), bytes_text(top),
      half_bandwidth(label)
  }

  skipped = ""; failed = ""
  for (t = 1; t <= states; t++) {
    if (tstate[tname[t]] == "skipped") skipped = skipped "\n- " tname[t] ": " tdetail[tname[t]]
    if (tstate[tname[t]] == "failed") failed = failed "\n- " tname[t] ": " tdetail[tname[t]]
  }
  if (skipped != "") print "\n## Skipped (not available in this build)\n" skipped
  if (failed != "") print "\n## FAILED (see logs/)\n" failed
}
