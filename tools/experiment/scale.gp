# scale.gp -- the scaling study's figures, from scale.csv (qwexp scale).
#
# Design note: one PNG per question of issue 4, each against players on a
# log2 axis, each titled with the test description (desc: map, workload,
# rate, window, pinning; hw: the machine) so no figure travels without
# it.  Columns are read by name, so the CSV may grow columns.  An empty
# field (a point that failed, a figure not measured) is skipped, never
# drawn as 0.  Variables from qwexp (gnuplot -e): csv, outdir, sat (the
# saturation point in players, 0 if none), rate, desc, hw.
# pngcairo at 820x520 with few colours keeps each file well under 100 KB.

set datafile separator ','
set datafile columnheaders
set datafile missing ''
set terminal pngcairo size 820,520 font 'Sans,10' noenhanced
set grid
set logscale x 2
set xlabel 'players (CCU)'
set key below horizontal
set tmargin 5
set pointsize 0.9
slot = 1000.0 / rate

if (sat + 0 > 0) {
	set arrow 1 from sat + 0, graph 0 to sat + 0, graph 1 nohead dt 2 lw 1.5 lc rgb '#cc0000' front
	set label 1 sprintf('saturation: %d players', sat + 0) at sat + 0, graph 0.04 right offset -0.5, 0 tc rgb '#cc0000' front
}
fig(name) = outdir . '/' . name
head(t) = t . "\n" . desc . "\n" . hw

set output fig('fig-response-rate.png')
set title head('Response rate: replies/s vs requests/s')
set ylabel 'datagrams per second (all players)'
set logscale y 10
plot csv using (column('players')):(column('offered_per_s')) with lines dt 2 lw 1.5 lc rgb '#888888' title sprintf('offered requests (players x %g/s)', rate), \
     '' using (column('players')):(column('requests_per_s')) with linespoints pt 6 lw 1.5 lc rgb '#1f77b4' title 'requests sent', \
     '' using (column('players')):(column('replies_per_s')) with linespoints pt 7 lw 2 lc rgb '#d62728' title 'replies received'

set output fig('fig-response-time.png')
set title head('Response time seen by the clients')
set ylabel 'milliseconds'
set logscale y 10
plot slot with lines dt 2 lw 1.5 lc rgb '#555555' title sprintf('one time slot (%.1f ms)', slot), \
     csv using (column('players')):(column('rt_mean_ms')) with linespoints pt 7 lw 2 lc rgb '#1f77b4' title 'mean', \
     '' using (column('players')):(column('rt_p99_ms')) with linespoints pt 5 lw 2 lc rgb '#ff7f0e' title 'p99', \
     '' using (column('players')):(column('rt_max_ms')) with linespoints pt 9 lw 1 lc rgb '#d62728' title 'max'

set output fig('fig-bandwidth.png')
set title head('Bandwidth per client (UDP payload)')
set ylabel 'bytes per second per client'
set logscale y 10
plot csv using (column('players')):(column('client_in_Bps')) with linespoints pt 7 lw 2 lc rgb '#d62728' title 'in: server to client (replies)', \
     '' using (column('players')):(column('client_out_Bps')) with linespoints pt 5 lw 2 lc rgb '#1f77b4' title 'out: client to server (requests)'

set output fig('fig-reply-size.png')
set title head('Reply size (bytes per datagram)')
set ylabel 'bytes'
set logscale y 10
plot csv using (column('players')):(column('srv_reply_bytes_max')) with linespoints pt 9 lw 1 lc rgb '#d62728' title 'reply max (qwd)', \
     '' using (column('players')):(column('srv_reply_bytes_p99')) with linespoints pt 5 lw 1.5 lc rgb '#ff7f0e' title 'reply p99 (qwd)', \
     '' using (column('players')):(column('srv_reply_bytes_mean')) with linespoints pt 7 lw 2 lc rgb '#2ca02c' title 'reply mean (qwd)', \
     '' using (column('players')):(column('reply_bytes')) with points pt 6 ps 1.6 lc rgb '#000000' title 'reply mean (clients)', \
     '' using (column('players')):(column('request_bytes')) with linespoints pt 4 lw 1 lc rgb '#1f77b4' title 'request mean (clients)'

set output fig('fig-request-time.png')
set title head('Request processing time inside qwd')
set ylabel 'microseconds'
set logscale y 10
plot csv using (column('players')):(column('srv_rt_mean_us')) with linespoints pt 7 lw 2 lc rgb '#1f77b4' title 'mean', \
     '' using (column('players')):(column('srv_rt_p99_us')) with linespoints pt 5 lw 2 lc rgb '#ff7f0e' title 'p99 (mean of 1 s intervals)', \
     '' using (column('players')):(column('srv_rt_max_us')) with linespoints pt 9 lw 1 lc rgb '#d62728' title 'max'

set output fig('fig-cpu.png')
set title head('Server CPU')
set ylabel '% of one CPU'
set y2label 'CPU microseconds per request'
unset logscale y
set logscale y2 10
set yrange [0:*]
set ytics nomirror
set y2tics
set y2tics add ('2' 2, '5' 5, '20' 20, '50' 50, '200' 200, '500' 500)
plot csv using (column('players')):(column('srv_cpu_pct')) with linespoints pt 7 lw 2 lc rgb '#d62728' axes x1y1 title 'server CPU (%, left)', \
     '' using (column('players')):(column('srv_us_per_request')) with linespoints pt 5 lw 2 lc rgb '#1f77b4' axes x1y2 title 'CPU per request (us, right)'
unset y2tics
unset y2label
unset logscale y2
set ytics mirror
set yrange [*:*]

# the breakdown: one stacked bar per player count (categories, not log);
# left the shares of wall time (idle included: how loaded the server is),
# right the shares of busy time (idle left out: where the work goes)
set output fig('fig-breakdown.png')
unset logscale x
unset logscale y
unset arrow 1
unset label 1
set tmargin 3
set multiplot layout 1,2 title head('Server execution-time breakdown')
set xlabel 'players (CCU)'
set yrange [0:100]
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.75
set key below horizontal
set xtics nomirror rotate by -45 font ',8'
set title 'share of wall time (%)'
set ylabel '%'
plot csv using (100 * column('share_world')):xtic(1) title 'world' lc rgb '#9467bd', \
     '' using (100 * column('share_receive')) title 'receive' lc rgb '#1f77b4', \
     '' using (100 * column('share_execute')) title 'execute' lc rgb '#2ca02c', \
     '' using (100 * column('share_reply')) title 'reply' lc rgb '#d62728', \
     '' using (100 * column('share_idle')) title 'idle' lc rgb '#dddddd'
busy(k) = 100 * column(k) / (1 - column('share_idle'))
set title 'share of busy time (idle left out, %)'
unset ylabel
plot csv using (busy('share_world')):xtic(1) title 'world' lc rgb '#9467bd', \
     '' using (busy('share_receive')) title 'receive' lc rgb '#1f77b4', \
     '' using (busy('share_execute')) title 'execute' lc rgb '#2ca02c', \
     '' using (busy('share_reply')) title 'reply' lc rgb '#d62728'
unset multiplot
