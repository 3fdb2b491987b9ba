# jct_cdf.gp: CDF of job completion times, one line per policy.
# Data (jct_cdf.dat): one block per policy, columns jct_s cdf.
# Inputs: see style.gp, plus datafile, n (policies), titles[1..n].
load scriptdir.'/style.gp'
set xlabel 'Job completion time (s)'
set ylabel 'CDF of jobs'
set yrange [0:1]
set logscale x 10
set key bottom right
plot for [i=1:n] datafile index (i-1) using 1:2 with steps linetype i title titles[i]
