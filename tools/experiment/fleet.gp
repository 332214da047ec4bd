# fleet.gp -- the fleet experiment's interference, from fleet-summary.csv
# (qwexp fleet).  Design note: one figure, two panels: the servers' CPU
# per reply and their p99 response time, one server alone against the
# mean of N at once, a cluster per configuration (pinned, unpinned); the
# ratio together/alone written above each pair.
# Variables (gnuplot -e): csv, outdir, desc, hw.

set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 980,440 font 'Sans,10' noenhanced
set output outdir . '/fig-fleet.png'
set multiplot layout 1,2 title "Fleet: N servers on one host\n" . desc . "\n" . hw
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#333333'
set grid ytics
set yrange [0:*]
set key top left
set ylabel 'server CPU microseconds per reply'
plot csv using (column('alone_us')):xtic(1) title 'one alone' lc rgb '#7f7f7f', \
     '' using (column('together_us')) title 'N at once (mean)' lc rgb '#d62728', \
     '' using 0:(column('together_us')):(sprintf('x%.2f', column('together_us') / column('alone_us'))) with labels offset 1.5, 0.8 notitle
set ylabel 'p99 response time, ms'
plot csv using (column('alone_p99')):xtic(1) title 'one alone' lc rgb '#7f7f7f', \
     '' using (column('together_p99')) title 'N at once (mean)' lc rgb '#1f77b4', \
     '' using 0:(column('together_p99')):(sprintf('x%.2f', column('together_p99') / column('alone_p99'))) with labels offset 1.5, 0.8 notitle
unset multiplot
