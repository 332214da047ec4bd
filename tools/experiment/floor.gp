# floor.gp -- qwd's CPU per request against the bare UDP echo, from
# floor.csv (qwexp floor).  Design note: two bars per client count, on a
# log scale (the gap is the point), the multiple written above each pair.
# Variables (gnuplot -e): csv, outdir, desc, hw.

set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 820,480 font 'Sans,10' noenhanced
set output outdir . '/fig-floor.png'
set title "Network floor\n" . desc . "\n" . hw
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#333333'
set grid ytics
set logscale y 10
set xlabel 'clients (players)'
set ylabel 'server CPU microseconds per request'
set key top right
plot csv using (column('qwd_us_per_request')):xtic(1) title 'qwd' lc rgb '#d62728', \
     '' using (column('echo_us_per_request')) title 'UDP echo (kernel floor)' lc rgb '#7f7f7f', \
     '' using 0:(column('qwd_us_per_request')):(sprintf('%.1fx', column('multiple'))) with labels offset -1.5, 0.8 notitle
