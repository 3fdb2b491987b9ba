#!/bin/sh
# sched.sh: the cluster schedulers' speed on Muri's traces (part of
# `make bench`; docs/PERFORMANCE.md, "Cluster schedulers").
#
#   sh tests/bench/sched.sh BUILD_DIR
#
# Imports ../shared/traces/muri/trace1..4.csv (skipped, with a note, when
# absent) and replays each under srtf, srsf, tiresias, gittins, muri-s,
# muri-l, gavel, themis, gandiva and antman on Muri's cluster (8x8;
# V100-32GB assumed, docs/TRACE_FORMAT.md).
# Prints one line per run:
#   bench sched trace=T policy=P jobs=... cpu_s=... jct_mean_s=...
#         makespan_s=... [peer_cpu_s=... ratio=...]
# Muri's Python simulator cannot be run here; peer_cpu_s is the CPU time
# issue 19 measured for it (SRTF trace2 71 s, Tiresias trace2 109 s,
# Muri-S trace3 48 s; Muri-S did not finish trace1, 2 or 4 in 900 s: a
# lower bound, shown as >=).  Knob: SCHED_POLICIES.
set -eu

BUILD=${1:-build}
SHARED=${SHARED:-../shared/traces/muri}
POLICIES=${SCHED_POLICIES:-"srtf srsf tiresias gittins muri-s muri-l gavel themis gandiva antman"}
CLUSTER=8x8:v100-32gb:cpus=92:mem_gb=520
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -f "$SHARED/trace1.csv" ]; then
	echo "bench sched: skipped ($SHARED/trace1.csv absent; colosim traces fetch muri)"
	exit 0
fi

field() {
	printf '%s\n' "$2" | tr ',{}' '\n\n\n' |
		sed -n "s/^ *\"$1\": *//p" | head -1
}

peer() {    # trace policy -> the issue's figure for Muri's simulator
	case "$1:$2" in
	2:srtf) echo 71 ;;
	2:tiresias) echo 109 ;;
	3:muri-s) echo 48 ;;
	1:muri-s|2:muri-s|4:muri-s) echo ">=900" ;;
	*) echo "" ;;
	esac
}

for t in 1 2 3 4; do
	"$BUILD/colosim" import muri "$SHARED/trace$t.csv" -o "$TMP/t$t.csv" -q
	for p in $POLICIES; do
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$BUILD/colosim" replay \
			"$TMP/t$t.csv" --policy "$p" --cluster "$CLUSTER" \
			--json >"$TMP/out"
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
		out=$(cat "$TMP/out")
		line="bench sched trace=trace$t policy=$p"
		line="$line jobs=$(field jobs_total "$out") cpu_s=$cpu"
		line="$line jct_mean_s=$(field jct_mean_s "$out")"
		line="$line makespan_s=$(field makespan_s "$out")"
		pc=$(peer $t $p)
		if [ -n "$pc" ]; then
			n=${pc#>=}
			r=$(awk -v a="$n" -v b="$cpu" 'BEGIN { printf "%.0f", a / (b > 0.005 ? b : 0.005) }')
			[ "$n" = "$pc" ] || r=">=$r"
			line="$line peer_cpu_s=$pc ratio=$r"
		fi
		echo "$line"
	done
done
