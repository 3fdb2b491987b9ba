# sweep.gp: one metric against a swept parameter, one line per policy (and
# combination of the other swept values), each point the mean over
# replications with its confidence interval (solid bars).
# Data: one block per line, columns x mean lo hi n.
# Inputs: see style.gp, plus datafile, n, titles[1..n], xlabel, ylabel,
# ymax (> 0: the axis is [0, ymax]), logx (1: logarithmic x axis), xlo and
# xhi (the swept range).  The lines' points are spread sideways by up to
# +-1.5% of the range (of its logarithm on a log axis) so that their
# intervals do not hide each other; the data file holds the exact x.
keyed = 1
load scriptdir.'/style.gp'
set xlabel xlabel
set ylabel ylabel
if (logx) set logscale x 10
if (ymax > 0) { set yrange [0:ymax] } else { set yrange [*:*] }
set offsets graph 0.04, graph 0.04, 0, 0
off(i) = n > 1 ? 0.03 * ((i - 1.0) / (n - 1.0) - 0.5) : 0
dodge(x, i) = logx ? x * (xhi / xlo) ** off(i) : x + (xhi - xlo) * off(i)
plot for [i=1:n] datafile index (i-1) using (dodge($1, i)):2 with linespoints linetype i title titles[i], \
     for [i=1:n] datafile index (i-1) using (dodge($1, i)):2:3:4 with yerrorbars linetype i dashtype solid notitle
