# jct_cdf.gp: CDF of job completion times, one line per policy.
# Data (jct_cdf.dat): one block per policy, columns jct_s cdf.
# Inputs: see style.gp, plus datafile, n (policies), titles[1..n].
keyed = 1
load scriptdir.'/style.gp'
set xlabel 'JCT (s)'
set ylabel 'CDF of jobs'
set yrange [0:1]
set logscale x 10
plot for [i=1:n] datafile index (i-1) using 1:2 with steps linetype lts[i] title titles[i]
