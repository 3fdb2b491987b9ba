# gpu.gp: one GPU of one run: its tenants over time (top: one bar per
# placement interval, overlapping ones in separate rows, training jobs and
# services in two colours; a bar wide enough is labelled with its job),
# and its HBM allocated and SM busy (bottom).
# Data (gpuG-vK.dat): block 0 start_s end_s row infer job; block 1
# t_s hbm_pct sm_pct.
# Inputs: see style.gp, plus datafile, titles[1..4] (the two kinds, the
# two series), xlabel, rows (tenant rows), xmax, runtitle.
keyed = 1
extra_h = 1.3
load scriptdir.'/style.gp'
unset title
tt = 1 - 0.35 / pdf_h
tb = tt - 1.1 / pdf_h
bt = tb - 0.12 / pdf_h
bb = (keyrows * 0.17 + 0.08 + 0.36) / pdf_h
set multiplot title runtitle noenhanced
set lmargin at screen 0.14
set rmargin at screen 0.95
# top: the tenants
set tmargin at screen tt
set bmargin at screen tb
set xrange [0:xmax]
set yrange [rows - 0.5:-0.5]
set ytics 1 format ''
set ylabel 'Tenants'
set format x ''
unset xlabel
unset key
set style fill solid 0.85 border lc rgb '#ffffff'
fits(t0, t1, s) = (t1 - t0) > xmax * 0.013 * (strlen(s) + 1)
plot datafile index 0 using (($1 + $2) / 2):3:(($2 - $1) / 2):(0.38):(int($4) + 1) with boxxyerror linecolor variable notitle, \
     datafile index 0 using (($1 + $2) / 2):3:(fits($1, $2, stringcolumn(5)) ? stringcolumn(5) : '') with labels font smallfont textcolor rgb '#ffffff' notitle
# bottom: HBM and SM, and the one key of the figure
set tmargin at screen bt
set bmargin at screen bb
set yrange [0:100]
set ytics auto format '%g'
set format x '%g'
set ylabel '%'
set xlabel xlabel
set key below horizontal maxcols keycols Left reverse samplen 2.5
plot keyentry with boxes linetype 1 dashtype solid title titles[1], \
     keyentry with boxes linetype 2 dashtype solid title titles[2], \
     datafile index 1 using 1:2 with lines linecolor rgb '#000000' dashtype solid title titles[3], \
     '' index 1 using 1:3 with lines linecolor rgb '#009E73' dashtype '-' title titles[4]
unset multiplot
