# bars.gp: one metric per policy as bars with confidence intervals
# (makespan, mean HBM allocated, SLO attainment, any --metric).
# Data: columns index mean lo hi n linetype, one row per policy.
# Inputs: see style.gp, plus datafile, n, titles[1..n], ylabel, ymax
# (> 0: the axis is [0, ymax], for percentages; else [0, the highest
# interval end]).  More than 6 policies, or labels too long to stand side
# by side, turn the bars horizontal (labels on the left, one row each).
maxlab = 1
do for [i=1:n] { if (strlen(titles[i]) > maxlab) { maxlab = strlen(titles[i]) } }
horiz = (n > 6 || n * maxlab > 54)
if (horiz) { extra_h = 0.19 * n + 0.7 - 2.3; if (extra_h < 0) { extra_h = 0 } }
load scriptdir.'/style.gp'
set style fill solid 0.85 border -1
stats datafile using 4 nooutput
top = ymax > 0 ? ymax : (STATS_max > 0 ? STATS_max * 1.05 : 1)
if (!horiz) {
    set boxwidth 0.6
    set xrange [0.4:n + 0.6]
    set yrange [0:top]
    set ylabel ylabel
    set xtics scale 0
    if (n > 4) { set xtics rotate by -30 left }
    plot datafile using 1:2:(int($6)):xtic(titles[int($1)]) with boxes linecolor variable notitle, \
         '' using 1:2:3:4 with yerrorbars linecolor rgb '#000000' dashtype solid linewidth 1.5 pointtype 7 pointsize 0.35 * psz notitle
} else {
    unset grid
    set grid xtics linecolor rgb '#d0d0d0' linewidth 0.5 dashtype 3
    set border 3
    set yrange [n + 0.6:0.4]
    set xrange [0:top]
    set xtics 0, nicestep(top / 4)
    set xlabel ylabel
    set ytics scale 0
    plot datafile using ($2 / 2):1:($2 / 2):(0.3):(int($6)):ytic(titles[int($1)]) with boxxyerror linecolor variable notitle, \
         '' using 2:1:3:4 with xerrorbars linecolor rgb '#000000' dashtype solid linewidth 1.5 pointtype 7 pointsize 0.35 * psz notitle
}
