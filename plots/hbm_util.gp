# hbm_util.gp: HBM allocated (% of capacity) over time, one line per policy.
# Data (hbm_util.dat): one block per policy, columns t_s hbm_pct.
# Inputs: see style.gp, plus datafile, n (policies), titles[1..n].
keyed = 1
load scriptdir.'/style.gp'
set xlabel 'Time (s)'
set ylabel 'HBM allocated (%)'
set yrange [0:100]
set xrange [0:*]
plot for [i=1:n] datafile index (i-1) using 1:2 with lines linetype lts[i] title titles[i]
