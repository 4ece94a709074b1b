#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The benches' plots: gnuplot (pngcairo) draws a PNG from a data file a bench wrote beside its
# table, so that a saved run can be drawn again without running the bench.
#   online   DATA OUT.png  the per-block online time of the large device (online-bench.sh's
#                          online-large.dat): a row per block, "block timed floor daxctl
#                          pmemramd": each block's own bare-sysfs online, then each method's
#                          median whole-device time divided by the blocks
#   conflict DATA OUT.png  conflict rates of one aging workload (conflict-bench.sh's
#                          conflict.dat): two blocks, uniform then Zipf access, a row per size
#                          and phase, "label off lo hi on lo hi live lo hi", per cent, median
#                          and range over the trials; "-" where not measured
# Prints OUT.png's path.
#
# Usage: tests/bench/plot.sh online|conflict DATA OUT.png [TITLE]
set -euo pipefail

die() {
	echo "plot: error: $*" >&2
	exit 1
}
[ $# -ge 3 ] || die "usage: $0 online|conflict DATA OUT.png [TITLE]"
kind=$1 data=$2 out=$3 title=${4:-}
[ -s "$data" ] || die "no data in $data"
command -v gnuplot >/dev/null || die "gnuplot is not installed (tests/deps.sh installs gnuplot-nox)"

# gnuplot reads strings in single quotes; a title's own are doubled.
quote() { printf "'%s'" "${1//\'/\'\'}"; }

online() {
	cat <<-EOF
		set title $(quote "${title:-per-block online time as Movable, large device}")
		set xlabel 'memory block, in the order onlined'
		set ylabel 'ms per block'
		set key below maxrows 2
		set yrange [0:*]
		set autoscale xfix
		set grid ytics
		set datafile missing '-'
		plot data using 1:2 with linespoints pt 7 ps 0.5 lw 1 lc rgb '#4a7ab5' \
			title 'floor: each block timed alone (bare sysfs write)', \
		     '' using 1:3 with lines lw 2 dt 2 lc rgb '#4a7ab5' title 'floor: whole device, median / blocks', \
		     '' using 1:4 with lines lw 2 lc rgb '#e08a2c' title 'daxctl: whole device, median / blocks', \
		     '' using 1:5 with lines lw 2 lc rgb '#3a9a4a' title 'pmemramd: whole device, median / blocks'
	EOF
}

conflict() {
	cat <<-EOF
		set multiplot layout 1,2 title $(quote "${title:-conflict rate of the direct-mapped cache}")
		set style data histogram
		set style histogram errorbars gap 1 lw 1
		set style fill solid 0.8 border -1
		set datafile missing '-'
		set key below horizontal
		set grid ytics
		set ylabel 'conflict rate, % of accesses (median, min..max)'
		set yrange [0:*]
		set title 'uniform access'
		plot data index 0 using 2:3:4:xtic(1) title 'shuffle off' lc rgb '#c0504d', \
		     '' index 0 using 5:6:7 title 'shuffle on' lc rgb '#4a7ab5', \
		     '' index 0 using 8:9:10 title 'off, then on live' lc rgb '#3a9a4a'
		set title 'Zipf access'
		plot data index 1 using 2:3:4:xtic(1) title 'shuffle off' lc rgb '#c0504d', \
		     '' index 1 using 5:6:7 title 'shuffle on' lc rgb '#4a7ab5', \
		     '' index 1 using 8:9:10 title 'off, then on live' lc rgb '#3a9a4a'
		unset multiplot
	EOF
}

case $kind in
online) size=900,540 ;;
conflict) size=1100,500 ;;
*) die "unknown plot '$kind' (online, conflict)" ;;
esac
{
	echo "set terminal pngcairo size $size font 'sans,10' noenhanced"
	echo "set output $(quote "$out.tmp")"
	echo "data = $(quote "$data")"
	"$kind"
} | gnuplot || die "gnuplot failed on $data"
mv "$out.tmp" "$out"
echo "$out"
