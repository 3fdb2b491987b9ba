#!/bin/sh
# run.sh: `make bench`, the engine benchmarks side by side with SimPy.
#
#   sh tests/bench/run.sh BUILD_DIR
#
# Prints `bench NAME key=value ...` lines (docs/PERFORMANCE.md explains them):
#   bench phold ...            PHOLD on the colosim engine (median of 3 runs)
#   bench phold_simpy ...      the same PHOLD in SimPy 3, same event count,
#                              process style, then callback style
#   bench phold_vs_simpy ...   checksum agreement and ratio= (ours / SimPy);
#                              the callback-style ratio is the headline one
#   bench hold ...             the hold model, 1e3 .. 1e6 pending events
#   bench bareheap ...         the same hold work on a bare binary heap
#   bench targets ...          the issue's targets, met or missed
# Exits non-zero if a program fails or the two PHOLDs disagree on the
# checksum (then they did not run the same model); a missed target is
# reported, not an error: this is a benchmark, not a test.
# events_per_s is per CPU second of the process (wall_s is printed too).
# Knobs (environment): PHOLD_EVENTS (callback style, default 2000000) and
# PHOLD_PROCESS_EVENTS (default 1000000), sized so that each SimPy run takes
# about 5-10 s; HOLD_EVENTS (default 4000000 per size); PYTHON.
set -eu

BUILD=${1:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
PHOLD_EVENTS=${PHOLD_EVENTS:-2000000}
PHOLD_PROCESS_EVENTS=${PHOLD_PROCESS_EVENTS:-1000000}
HOLD_EVENTS=${HOLD_EVENTS:-4000000}
PHOLD_ARGS="--lps=1024 --init=16 --remote=0.5 --mean=1 --seed=1"
HERE=$(dirname "$0")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# field NAME LINE: the value of NAME=... in a bench line.
field() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

echo "# machine: $(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"

# median3 FILE: the line of FILE with the median events_per_s.
median3() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^events_per_s=/) {
		split($i, a, "="); print a[2], $0 } }' "$1" |
		sort -n | sed -n '2p' | cut -d' ' -f2-
}

# pair STYLE EVENTS: PHOLD on the engine (median of three runs) against the
# SimPy PHOLD of that style, with the same options and event count.
status=0
pair() {
	: >"$TMP/phold"
	for i in 1 2 3; do
		"$BUILD/bench/phold" $PHOLD_ARGS --events="$2" >>"$TMP/phold"
	done
	ours=$(median3 "$TMP/phold")
	echo "$ours"
	simpy=$("$PYTHON" "$HERE/phold_simpy.py" $PHOLD_ARGS --style="$1" \
		--events="$2")
	echo "$simpy"
	c_sum=$(field checksum "$ours")
	p_sum=$(field checksum "$simpy")
	c_eps=$(field events_per_s "$ours")
	p_eps=$(field events_per_s "$simpy")
	ratio=$(awk -v a="$c_eps" -v b="$p_eps" 'BEGIN { printf "%.1f", a / b }')
	match=no
	[ "$c_sum" = "$p_sum" ] && match=yes
	echo "bench phold_vs_simpy style=$1 events=$2 checksum_match=$match ours_events_per_s=$c_eps simpy_events_per_s=$p_eps ratio=$ratio"
	if [ "$match" != yes ]; then
		echo "run.sh: PHOLD checksums differ ($c_sum vs SimPy $p_sum): they did not run the same model" >&2
		status=1
	fi
}

if ! "$PYTHON" -c 'import simpy' 2>/dev/null; then
	echo "run.sh: $PYTHON cannot import simpy (make deps installs python3-simpy3)" >&2
	exit 1
fi
pair process "$PHOLD_PROCESS_EVENTS"
pair callback "$PHOLD_EVENTS"

"$BUILD/bench/hold" --events="$HOLD_EVENTS" | tee "$TMP/hold"
"$BUILD/bench/bareheap" --events="$HOLD_EVENTS" | tee "$TMP/bare"

h5=$(grep 'pending=100000 ' "$TMP/hold")
b5=$(grep 'pending=100000 ' "$TMP/bare")
awk -v h="$(field events_per_s "$h5")" -v b="$(field events_per_s "$b5")" \
    -v r="$ratio" 'BEGIN {
	printf "bench targets hold_1e5_events_per_s=%.0f (target >= 5000000: %s) ", h, (h >= 5e6 ? "met" : "MISSED")
	printf "simpy_ratio=%s (target >= 30: %s) ", r, (r >= 30 ? "met" : "MISSED")
	printf "hold_over_bareheap_time_1e5=%.2f (callgrind: make callgrind)\n", b / h
}'

exit $status
