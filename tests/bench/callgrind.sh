#!/bin/sh
# callgrind.sh: `make callgrind`, instructions per event of the engine's hold
# loop against a bare binary heap doing the same work.
#
#   sh tests/bench/callgrind.sh BUILD_DIR
#
# Runs tests/bench/hold.c and tests/bench/bareheap.c at 1e5 pending events
# under valgrind --tool=callgrind, counting only the timed functions
# (hold_measured, bareheap_measured) after a warm-up of 1e5 events, and
# prints one line:
#   bench callgrind pending=... events=... hold_ir_per_event=...
#         bareheap_ir_per_event=... ratio=... (target <= 1.3)
#         rng_ir_per_event=... queue_only_ratio=...
# rng_ir_per_event is the inclusive cost of the exponential draw and its
# rounding to ns (sim_rng_exp + sim_time_from_s), the same in both programs;
# queue_only_ratio is the ratio with that common cost taken out of both.
# Knobs (environment): CG_PENDING (100000), CG_EVENTS (200000).
set -eu

BUILD=${1:-build}
PENDING=${CG_PENDING:-100000}
EVENTS=${CG_EVENTS:-200000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if ! command -v valgrind >/dev/null 2>&1; then
	echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
fi

# count PROG FUNCTION: prints "total rng" instructions for FUNCTION's calls.
count() {
	valgrind --tool=callgrind --callgrind-out-file="$TMP/$1.out" \
		--toggle-collect="$2" "$BUILD/bench/$1" --pending="$PENDING" \
		--events="$EVENTS" --warmup=1 >"$TMP/$1.txt" 2>"$TMP/$1.log" || {
		cat "$TMP/$1.log" >&2
		exit 1
	}
	total=$(sed -n 's/^summary: *//p' "$TMP/$1.out")
	rng=$(callgrind_annotate --inclusive=yes "$TMP/$1.out" 2>/dev/null |
		awk '/:sim_rng_exp |:sim_time_from_s / { gsub(",", "", $1); s += $1 }
		     END { print s + 0 }')
	echo "$total $rng"
}

set -- "$BUILD" $(count hold hold_measured) $(count bareheap bareheap_measured)
awk -v p="$PENDING" -v e="$EVENTS" -v h="$2" -v hr="$3" -v b="$4" -v br="$5" 'BEGIN {
	printf "bench callgrind pending=%d events=%d hold_ir_per_event=%.1f bareheap_ir_per_event=%.1f ratio=%.3f (target <= 1.3) rng_ir_per_event=%.1f queue_only_ratio=%.3f\n",
	    p, e, h / e, b / e, h / b, hr / e, (h - hr) / (b - br)
}'
