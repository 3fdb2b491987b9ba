# llm_cdf.gp: LLM services: the CDF of time to first token (left) and of
# time per output token (right), one line per policy, from the stored
# histograms (each CDF at its bins' upper edges).  One key, inside the
# left panel's empty lower right, so both panels keep the same size.
# Data (llm_cdf.dat): blocks 0..n-1 the TTFT CDF per policy, blocks
# n..2n-1 the TPOT CDF; columns ms cdf.
# Inputs: see style.gp, plus datafile, n (policies), titles[1..n].
keyed = 0
fig_w = 6.8
load scriptdir.'/style.gp'
unset title
if (strlen(figtitle) > 0) set multiplot layout 1,2 title figtitle noenhanced
if (strlen(figtitle) == 0) set multiplot layout 1,2
set ylabel 'CDF of requests'
set yrange [0:1]
set logscale x 10
set key inside right bottom Left reverse noenhanced samplen 2.5 spacing 1.1
set xlabel 'Time to first token (ms)'
plot for [i=1:n] datafile index (i-1) using 1:2 with lines linetype lts[i] title titles[i]
unset key
set xlabel 'Time per output token (ms)'
unset ylabel
plot for [i=1:n] datafile index (n+i-1) using 1:2 with lines linetype lts[i] notitle
unset multiplot
