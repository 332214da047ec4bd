# compare.gp -- qwd against MVDSV + KTX, from compare-summary.csv (medians).
#
# Design note: the two figures of merit of ../shared/BENCHMARKS.md side by
# side: server CPU-seconds per 1000 replies (left) and the response-time
# percentiles (right), one bar per server.  Variables (gnuplot -e): csv,
# outdir, desc, hw.  Rows: qwd first, then mvdsv.

set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 900,460 font 'Sans,10' noenhanced
set output outdir . '/fig-compare.png'
set multiplot layout 1,2 title "qwd vs MVDSV + KTX\n" . desc . "\n" . hw
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#333333'
set grid ytics
set yrange [0:*]

set title 'server CPU-seconds per 1000 replies'
set key off
set boxwidth 0.8
plot csv using (column('cpu_s_per_1000_replies')):xtic(1) lc rgb '#1f77b4'

set title 'response time (ms)'
set key top left
set logscale y 10
set yrange [*:*]
plot csv using (column('rt_p50_ms')):xtic(1) title 'p50' lc rgb '#2ca02c', \
     '' using (column('rt_p90_ms')) title 'p90' lc rgb '#ff7f0e', \
     '' using (column('rt_p99_ms')) title 'p99' lc rgb '#d62728'
unset multiplot
