# waves.gp -- the figure of README.md, from summary.py's timeline-*.csv.
#
# Design note: one time axis (seconds since the first wave started) for
# five panels: the bots in the game, the workers the predicted pools ran,
# the need they predicted, the replies per second, and the p99
# response time per second (log scale), the fixed pools beside the
# predicted ones.  Run from this folder after summary.py:
#   gnuplot -e "rep='1'" waves.gp   (writes waves-1.svg; rep: raw/REP)

set datafile separator ','
set datafile missing '-'
set terminal svg size 900,1300 font 'Sans,11' noenhanced
if (!exists('rep')) rep = '1'
set output 'waves-' . rep . '.svg'
set multiplot layout 5,1 title "qwd reply pools under three waves of 500 qwbots walkers (small, 30 requests/s each, 2 vCPUs), repetition " . rep
set grid
set xrange [0:106]
set key outside right top vertical Left reverse
set lmargin 10
set rmargin 30

t1 = 'timeline-' . rep . '-t1.csv'
t2 = 'timeline-' . rep . '-t2.csv'
au = 'timeline-' . rep . '-auto.csv'
lo = 'timeline-' . rep . '-auto0.2-0.1.csv'

set title 'bots in the game (the overload policy drops the newest when the frame is full)'
set ylabel 'bots'
set yrange [0:1700]
plot t1 using 1:2 skip 1 with lines lw 1.5 lc rgb '#7f7f7f' title '-threads 1', \
     t2 using 1:2 skip 1 with lines lw 1.5 lc rgb '#2ca02c' title '-threads 2', \
     au using 1:2 skip 1 with lines lw 1.5 lc rgb '#1f77b4' title 'auto 0.75/0.5', \
     lo using 1:2 skip 1 with lines lw 1.5 dt 2 lc rgb '#d62728' title 'auto 0.2/0.1'

set title 'workers active (qwd console, once a second)'
set ylabel 'workers'
set yrange [0:2.5]
set ytics 1
plot au using 1:6 skip 1 with steps lw 2.5 lc rgb '#1f77b4' title 'auto 0.75/0.5', \
     lo using 1:6 skip 1 with steps lw 1.5 dt 2 lc rgb '#d62728' title 'auto 0.2/0.1'
set ytics autofreq

set title 'need predicted by the pool (workers)'
set ylabel 'workers'
set yrange [0:*]
plot au using 1:8 skip 1 with lines lw 2 lc rgb '#1f77b4' title 'auto 0.75/0.5', \
     lo using 1:8 skip 1 with lines lw 1.5 lc rgb '#d62728' title 'auto 0.2/0.1', \
     0.75 with lines dt 3 lc rgb '#1f77b4' title 'grow at 1 (0.75)', \
     0.2 with lines dt 3 lc rgb '#d62728' title 'grow at 1 (0.2)'

set title 'replies per second (all bots)'
set ylabel 'replies/s'
set yrange [0:50000]
plot t1 using 1:4 skip 1 with lines lw 1.5 lc rgb '#7f7f7f' title '-threads 1', \
     t2 using 1:4 skip 1 with lines lw 1.5 lc rgb '#2ca02c' title '-threads 2', \
     au using 1:4 skip 1 with lines lw 1.5 lc rgb '#1f77b4' title 'auto 0.75/0.5', \
     lo using 1:4 skip 1 with lines lw 1.5 dt 2 lc rgb '#d62728' title 'auto 0.2/0.1'

set title 'response time p99 per second (ms, the largest of the waves)'
set ylabel 'ms'
set xlabel 'seconds since the first wave'
set logscale y
set yrange [0.5:1000]
plot t1 using 1:5 skip 1 with lines lw 1.5 lc rgb '#7f7f7f' title '-threads 1', \
     t2 using 1:5 skip 1 with lines lw 1.5 lc rgb '#2ca02c' title '-threads 2', \
     au using 1:5 skip 1 with lines lw 1.5 lc rgb '#1f77b4' title 'auto 0.75/0.5', \
     lo using 1:5 skip 1 with lines lw 1.5 dt 2 lc rgb '#d62728' title 'auto 0.2/0.1'
unset multiplot
