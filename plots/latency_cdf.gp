# latency_cdf.gp: CDF of inference request latency, one line per policy,
# from the stored latency histograms (the CDF at each bin's upper edge).
# Data (latency_cdf.dat): one block per policy, columns latency_ms cdf.
# Inputs: see style.gp, plus datafile, n (policies), titles[1..n].
keyed = 1
load scriptdir.'/style.gp'
set xlabel 'Request latency (ms)'
set ylabel 'CDF of requests'
set yrange [0:1]
set logscale x 10
plot for [i=1:n] datafile index (i-1) using 1:2 with lines linetype lts[i] title titles[i]
