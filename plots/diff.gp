# diff.gp: the paired difference of one metric against the baseline, per
# policy: the mean of (policy - baseline) over the replications both ran,
# with its confidence interval (solid bars), and the relative difference
# as the report prints it.  The line at 0 is the baseline.
# Data: columns index diff lo hi n linetype rel_diff, one row per policy.
# Inputs: see style.gp, plus datafile, n, titles[1..n], ylabel.  More than
# 6 policies, or labels too long to stand side by side, turn the figure
# horizontal (labels on the left, one row each), as in bars.gp.
maxlab = 1
do for [i=1:n] { if (strlen(titles[i]) > maxlab) { maxlab = strlen(titles[i]) } }
horiz = (n > 6 || n * maxlab > 54)
if (horiz) { extra_h = 0.19 * n + 0.7 - 2.3; if (extra_h < 0) { extra_h = 0 } }
load scriptdir.'/style.gp'
stats datafile using 3 nooutput
lo = STATS_min < 0 ? STATS_min : 0
stats datafile using 4 nooutput
hi = STATS_max > 0 ? STATS_max : 0
if (hi <= lo) { hi = lo + 1 }
if (!horiz) {
    set xrange [0.4:n + 0.6]
    set offsets 0, 0, graph 0.12, graph 0.05
    set ylabel ylabel
    set xtics scale 0
    if (n > 4) { set xtics rotate by -30 left }
    set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead linecolor rgb '#404040' linewidth 1 dashtype solid back
    plot datafile using 1:2:3:4:(int($6)):xtic(titles[int($1)]) with yerrorbars linecolor variable dashtype solid linewidth 2 pointtype 7 pointsize 1.2 * psz notitle, \
         '' using 1:4:7 with labels offset 0,0.8 font smallfont textcolor rgb '#404040' notitle
} else {
    unset grid
    set grid xtics linecolor rgb '#d0d0d0' linewidth 0.5 dashtype 3
    set yrange [n + 0.6:0.4]
    set xrange [lo - 0.05 * (hi - lo):hi + 0.2 * (hi - lo)]
    set xtics nicestep((hi - lo) / 4)
    set xlabel ylabel
    set ytics scale 0
    set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead linecolor rgb '#404040' linewidth 1 dashtype solid back
    plot datafile using 2:1:3:4:(int($6)):ytic(titles[int($1)]) with xerrorbars linecolor variable dashtype solid linewidth 2 pointtype 7 pointsize 1.2 * psz notitle, \
         '' using 4:1:7 with labels left offset 0.8,0 font smallfont textcolor rgb '#404040' notitle
}
