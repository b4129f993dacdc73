# SPDX-License-Identifier: MIT
# bench/plot.gp - round-trip latency against payload size, one line per
# transport.  bench/run.sh calls it from build/bench:
#   gnuplot -e "transports='fastbinder binder ...'; subtitle='...'; \
#               suffix=''; out='latency.png'; what=''" plot.gp
# Data: lat-<transport><suffix>.dat, lines "size median_us p99_us".
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1000,640 font ",11" } else { set terminal png size 1000,640 }
set output out
set title sprintf("Round-trip latency (echo, median) against payload size%s\n{/*0.8 %s}", what, subtitle)
set logscale xy
set xlabel 'payload (bytes)'
set ylabel 'round trip (us, log scale)'
set xtics ("4 B" 4, "128 B" 128, "4 KiB" 4096, "64 KiB" 65536, "1 MiB" 1048576)
set grid
set key top left
plot for [t in transports] sprintf('lat-%s%s.dat', t, suffix) using 1:2 with linespoints lw 2 pt 7 title t
