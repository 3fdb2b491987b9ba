#!/bin/sh
# schedulers.sh: imports Muri's trace3 (and three 90 % resamples), runs
# experiments/schedulers.ini, prints the report and writes the figures.
#
#   sh experiments/schedulers.sh [BUILD_DIR]
#
# Needs ../shared/traces/muri/trace3.csv (or COLOSIM_MURI=DIR).  Writes
# results/schedulers/*.csv, results/schedulers.db and figures/schedulers/.
set -eu

BUILD=${1:-build}
SRC=${COLOSIM_MURI:-../shared/traces/muri}
OUT=results/schedulers
mkdir -p "$OUT"
"$BUILD/colosim" import muri "$SRC/trace3.csv" -o "$OUT/trace3.csv" -q
for s in 1 2 3; do
	"$BUILD/colosim" import muri "$SRC/trace3.csv" --sample 0.9 \
		--seed "$s" -o "$OUT/trace3-s$s.csv" -q
done
"$BUILD/colosim" run experiments/schedulers.ini -j 2 --overwrite
"$BUILD/colosim" report results/schedulers.db --experiment schedulers
"$BUILD/colosim" plot results/schedulers.db --experiment schedulers \
	--out figures/schedulers --format png
