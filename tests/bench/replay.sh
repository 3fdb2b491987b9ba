#!/bin/sh
# replay.sh: the whole simulator's speed, one `bench replay ...` line per
# policy (part of `make bench`; docs/PERFORMANCE.md, "The whole simulator").
#
#   sh tests/bench/replay.sh BUILD_DIR
#
# Generates a synthetic trace with `colosim gen` (fixed options and seed, so
# the same bytes every time: 80 rows, about 30 % inference services that
# send about 3.5 million requests in all) and replays it with `colosim
# replay --json` on a 2x8 A100-80GB cluster, once per policy.  Prints
#   bench replay policy=P jobs=... requests=... events=... wall_s=...
#         cpu_s=... events_per_s=... requests_per_s=...
# events counts engine events (arrivals, requests, batch and unit
# completions, timers, scheduling passes); events_per_s and requests_per_s
# are per CPU second of the process (user + system, from /usr/bin/time when
# it exists, else the wall time colosim reports).  The simulated results are
# checked elsewhere (the golden suite); this is a benchmark only.
# Knobs (environment): REPLAY_JOBS (80), REPLAY_POLICIES ("mps timeslice").
set -eu

BUILD=${1:-build}
JOBS=${REPLAY_JOBS:-80}
POLICIES=${REPLAY_POLICIES:-"mps timeslice"}
CLUSTER=2x8:a100-80gb
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# field NAME JSON: a number from colosim's one-line JSON object.
field() {
	printf '%s\n' "$2" | tr ',{}' '\n\n\n' |
		sed -n "s/^ *\"$1\": *//p" | head -1
}

"$BUILD/colosim" gen --seed 3 --jobs "$JOBS" --rate 0.05 -o "$TMP/trace.csv"
for p in $POLICIES; do
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$BUILD/colosim" replay \
			"$TMP/trace.csv" --policy "$p" --cluster "$CLUSTER" \
			--json >"$TMP/out"
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
	else
		"$BUILD/colosim" replay "$TMP/trace.csv" --policy "$p" \
			--cluster "$CLUSTER" --json >"$TMP/out"
		cpu=
	fi
	j=$(cat "$TMP/out")
	wall=$(field wall_s "$j")
	[ -n "$cpu" ] || cpu=$wall
	awk -v p="$p" -v c="$CLUSTER" -v n="$JOBS" -v r="$(field requests_total "$j")" \
	    -v e="$(field events "$j")" -v w="$wall" -v cpu="$cpu" 'BEGIN {
		if (cpu <= 0) cpu = w
		printf "bench replay policy=%s cluster=%s jobs=%d requests=%d events=%d wall_s=%.3f cpu_s=%.2f events_per_s=%.0f requests_per_s=%.0f\n",
		    p, c, n, r, e, w, cpu, e / cpu, r / cpu
	}'
done
