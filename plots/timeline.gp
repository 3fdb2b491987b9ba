# timeline.gp: what ran where in one run: one bar per placement interval
# on each GPU (co-located tenants in rows within the GPU's band), training
# jobs and services in two colours.
# Data (timeline-vK.dat): start_s end_s y infer gpu job.
# Inputs: see style.gp, plus datafile, titles[1..2] (the two kinds),
# xlabel, ylabel, rows, ngpus, xmax, runtitle.
keyed = 1
load scriptdir.'/style.gp'
set title runtitle noenhanced
set xlabel xlabel
set ylabel ylabel
set xrange [0:xmax]
set yrange [ngpus - 0.5:-0.5]
if (ngpus <= 16) { set ytics 1 } else { set ytics autofreq }
unset grid
set style fill solid 0.85 border lc rgb '#ffffff'
plot datafile using (($1 + $2) / 2):3:(($2 - $1) / 2):(0.4 / rows):(int($4) + 1) with boxxyerror linecolor variable notitle, \
     keyentry with boxes linetype 1 dashtype solid title titles[1], \
     keyentry with boxes linetype 2 dashtype solid title titles[2]
