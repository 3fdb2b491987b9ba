# style.gp: the one colosim figure style, loaded by every figure script.
#
# colosim sets, with gnuplot -e, every string single-quoted:
#   fmt       'pdf', 'png' or 'svg'
#   term      the terminal colosim picked from what this gnuplot offers:
#             pdfcairo, pngcairo, png (libgd fallback) or svg
#   outfile   the figure to write
#   figtitle  the setting drawn ('' when the experiment sweeps only policies)
#   n, titles[1..n]   the plotted series (policies) and their labels
# A script that draws a key sets keyed = 1 before loading this file; the
# key then goes below the plot, never over the data, in as many columns as
# the longest label allows, and the canvas grows by its rows so that the
# plot area keeps its size.  A script may set extra_h (inches of PDF) for
# more room (the tenant panel of gpu.gp).
#
# Sizes: a single column of a two-column paper (3.4 in wide) for PDF;
# the same aspect ratio at screen resolution for PNG and SVG.  Every
# terminal is noenhanced: labels come from configs and are shown verbatim.

if (!exists("keyed")) keyed = 0
if (!exists("extra_h")) extra_h = 0
# fig_w: inches of PDF width (3.4, one column; 6.8 spans two: llm_cdf.gp)
if (!exists("fig_w")) fig_w = 3.4
if (!exists("n")) n = 0
maxlab = 1
if (keyed && n > 0) { do for [i=1:n] { if (strlen(titles[i]) > maxlab) { maxlab = strlen(titles[i]) } } }
# columns that fit 3.4 in at 9 pt (about 0.065 in a character, 0.35 in of
# line sample and gap per entry)
keycols = (maxlab <= 8) ? 4 : (maxlab <= 14) ? 3 : (maxlab <= 24) ? 2 : 1
if (keycols > n && n > 0) keycols = n
keyrows = (keyed && n > 0) ? int(ceil(real(n) / keycols)) : 0
pdf_h = 2.3 + extra_h + keyrows * 0.17 + (keyrows > 0 ? 0.1 : 0)
px_h = int(pdf_h / 2.3 * 690)
px_w = int(fig_w / 3.4 * 1020)

if (term eq 'pdfcairo') set terminal pdfcairo size fig_w,pdf_h font 'Helvetica,9' linewidth 1.5 rounded noenhanced
if (term eq 'pngcairo') set terminal pngcairo size px_w,px_h font 'Helvetica,18' linewidth 2 rounded noenhanced
if (term eq 'png') set terminal png size px_w,px_h noenhanced
if (term eq 'svg') set terminal svg size px_w,px_h font 'Helvetica,18' linewidth 2 rounded noenhanced
set output outfile
# a round tic step near x: 1, 2 or 5 times a power of ten
nicestep(x) = (x <= 0 ? 1 : (ns_e = 10 ** floor(log10(x)), ns_f = x / ns_e, (ns_f < 1.5 ? 1 : ns_f < 3.5 ? 2 : ns_f < 7.5 ? 5 : 10) * ns_e))
# point sizes: pdfcairo draws points larger against its 9 pt text
psz = (term eq 'pdfcairo') ? 0.5 : 1.0
# small print (annotations), in the terminal's own scale
smallfont = (term eq 'pdfcairo') ? ',7' : ',14'

set border 3
# error bars run through their point (no blank gap around it)
set pointintervalbox 0
set tics nomirror out scale 0.6
set grid ytics linecolor rgb '#d0d0d0' linewidth 0.5 dashtype 3
set key noenhanced samplen 2.5 spacing 1.1
if (keyed) set key below horizontal maxcols keycols Left reverse
if (!keyed) unset key
if (strlen(figtitle) > 0) set title figtitle noenhanced

# Twelve line types, each a distinct colour, dash pattern and point:
# the Okabe-Ito colours (safe for colour-blind readers) without their
# yellow, which vanishes on white, then five of Paul Tol's muted scheme.
# Past 12 the types repeat; the dash patterns and points keep the first
# 12 apart in grey-scale print.  Error bars are always drawn solid
# (dashtype solid in the scripts).
array LC[12] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', \
                '#56B4E9', '#000000', '#882255', '#999933', '#332288', \
                '#44AA99', '#AA4499']
array DT[12] = ['', '-', '.', '-.', '_', '-..', '_.', '. ', '_..', '- ', \
                '__.', '_ .']
array PT[12] = [7, 5, 9, 11, 13, 3, 1, 2, 6, 4, 8, 10]
do for [i=1:12] {
    if (i == 1) { set linetype i linecolor rgb LC[i] linewidth 2 dashtype solid pointtype PT[i] pointsize psz }
    if (i > 1) { set linetype i linecolor rgb LC[i] linewidth 2 dashtype DT[i] pointtype PT[i] pointsize psz }
}
set linetype cycle 12
