# openb.gp: GPU allocation ratio vs arrived GPU demand, in the style of
# Fig. 9 of the FGD paper (USENIX ATC'23): `colosim openb` (plot_openb in
# plots/plot_openb.c) runs it as
#   gnuplot -e "datafile='DIR/openb-alloc.dat'; outfile='DIR/openb-alloc.png'; ncurves='2'" plots/openb.gp
# Data: k, then one column per policy (titled in the header line).
# Its own style (not style.gp): the figure of docs/REPRODUCTION.md.
set terminal pngcairo size 1400,480 font ',13' linewidth 2
set output outfile
set datafile missing 'NaN'
set key autotitle columnhead
set grid lt 0 lw 0.5
n = int(ncurves)
set multiplot layout 1,2
set key top left
set xlabel 'Arrived workloads (% of cluster GPU capacity)'
set ylabel 'GPU allocation ratio (%)'
set xrange [0:130]
set yrange [0:100]
plot for [i=2:n+1] datafile using 1:i with lines lw 2, \
     (x < 100 ? x : 100) with lines dt 3 lc 'grey' title 'Ideal'
set key top right
set ylabel 'Unallocated GPU (%)'
set xrange [75:130]
set yrange [0:25]
plot for [i=2:n+1] datafile using 1:(100 - column(i)) with lines lw 2, \
     (x < 100 ? 100 - x : 0) with lines dt 3 lc 'grey' title 'Ideal'
unset multiplot
