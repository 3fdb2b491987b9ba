# bars.gp: one metric per policy as bars with confidence intervals
# (makespan, mean HBM utilization, SLO attainment).
# Data: columns index mean lo hi n, one row per policy.
# Inputs: see style.gp, plus datafile, n, titles[1..n], ylabel.
load scriptdir.'/style.gp'
set style fill solid 0.85 border -1
set boxwidth 0.6
set xrange [0.4:n + 0.6]
set yrange [0:*]
set ylabel ylabel
set xtics scale 0
if (n > 4) set xtics rotate by -30 left
unset key
plot datafile using 1:2:(int($1)):xtic(titles[int($1)]) with boxes linecolor variable, \
     '' using 1:2:3:4 with yerrorbars linecolor rgb '#000000' linewidth 1.5 pointtype -1
