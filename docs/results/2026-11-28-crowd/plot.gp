# plot.gp -- fig-callgrind.png: the server's instructions per request in
# the steady state, base and after, for each crowd (callgrind.csv).
#
# Design note: one bar pair per (players, map), the base's and this
# branch's server_frame figures: the rows of callgrind.csv whose build is
# base or after, copied below (gnuplot's histograms want one row per
# pair).
set terminal pngcairo size 800,450
set output 'fig-callgrind.png'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'server instructions per request (steady state)'
set yrange [0:170000]
set key top left
set title 'qwd server_frame, callgrind, framebench 30 minus 10 rounds' noenhanced
$d << END
2048 small,67011,52441
1024 small,37296,31277
2048 lqdm1,138610,118317
1024 lqdm1,94433,83358
END
plot $d using 2:xtic(1) title 'base (main b8b5460)', '' using 3 title 'after (h-crowd)'
