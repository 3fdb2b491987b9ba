# style.gp: the one colosim figure style, loaded by every figure script.
#
# colosim sets, with gnuplot -e, every string single-quoted:
#   fmt       'pdf', 'png' or 'svg'
#   term      the terminal colosim picked from what this gnuplot offers:
#             pdfcairo, pngcairo, png (libgd fallback) or svg
#   outfile   the figure to write
#   figtitle  the setting drawn ('' when the experiment sweeps only policies)
# Sizes: a single column of a two-column paper (3.4 in wide) for PDF;
# the same aspect ratio at screen resolution for PNG and SVG.  Every
# terminal is noenhanced: labels come from configs and are shown verbatim.

if (term eq 'pdfcairo') set terminal pdfcairo size 3.4in,2.3in font 'Helvetica,9' linewidth 1.5 rounded noenhanced
if (term eq 'pngcairo') set terminal pngcairo size 1020,690 font 'Helvetica,18' linewidth 2 rounded noenhanced
if (term eq 'png') set terminal png size 1020,690 noenhanced
if (term eq 'svg') set terminal svg size 1020,690 font 'Helvetica,18' linewidth 2 rounded noenhanced
set output outfile

set border 3
set tics nomirror out scale 0.6
set grid ytics linecolor rgb '#d0d0d0' linewidth 0.5 dashtype 3
set key noenhanced samplen 2.5 spacing 1.1
if (strlen(figtitle) > 0) set title figtitle noenhanced

# Okabe-Ito colours (safe for colour-blind readers), each with its own
# dash pattern so that the lines stay apart in grey-scale print.
set linetype 1 linecolor rgb '#0072B2' linewidth 2 dashtype 1 pointtype 7
set linetype 2 linecolor rgb '#D55E00' linewidth 2 dashtype 2 pointtype 5
set linetype 3 linecolor rgb '#009E73' linewidth 2 dashtype 3 pointtype 9
set linetype 4 linecolor rgb '#CC79A7' linewidth 2 dashtype 4 pointtype 11
set linetype 5 linecolor rgb '#E69F00' linewidth 2 dashtype 5 pointtype 13
set linetype 6 linecolor rgb '#56B4E9' linewidth 2 dashtype (8,4,2,4,2,4) pointtype 3
set linetype 7 linecolor rgb '#000000' linewidth 2 dashtype (2,2) pointtype 1
set linetype 8 linecolor rgb '#F0E442' linewidth 2 dashtype (12,4) pointtype 2
set linetype cycle 8
