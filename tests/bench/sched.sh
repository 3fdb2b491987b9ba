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
#         makespan_s=... [peer_cpu_s=... ratio=... [peer_jct_mean_s=...
#         peer_makespan_s=... jct_diff=... makespan_diff=...]]
#
# The peer, side by side: COLOSIM_PEER_MURI=DIR names a checkout of Muri's
# simulator (Rivendile/Muri simulator/, the folder with run_sim.py).  Then
# srtf, srsf, tiresias, muri-s and muri-l are also run by it (schedules
# shortest, shortest-gpu, dlas-gpu, multi-resource-blossom-same-gpu and
# ...-unaware, yarn placement, its cluster_n8g8.csv), its CPU time
# (user + sys of the child) measured in the same run, and its average JCT
# and makespan read from the job.csv it writes.  colosim then runs the
# peer's semantics: trace imported with --iter-scale 1.015 (Muri's jobs.py
# factor) and --spread-cost none (its placement has no network).  A peer
# run is stopped after COLOSIM_PEER_TIMEOUT seconds (default 900): its CPU
# time is then a lower bound (>=).  The per-event restart overhead of
# Muri's run_sim.py is part of the peer as it is checked out: zero it
# there for a like-for-like JCT (docs/VALIDATION.md, "Cluster
# schedulers").  Without the peer, peer_cpu_s is the CPU time
# measured for it with the task (SRTF trace2 71 s, Tiresias trace2 109 s, Muri-S trace3
# 48 s; Muri-S did not finish trace1, 2 or 4 in 900 s: a lower bound,
# shown as >=).  Knobs: SCHED_POLICIES, SCHED_TRACES (default "1 2 3 4"),
# PYTHON (default python3).
set -eu

BUILD=${1:-build}
SHARED=${SHARED:-../shared/traces/muri}
POLICIES=${SCHED_POLICIES:-"srtf srsf tiresias gittins muri-s muri-l gavel themis gandiva antman"}
TRACES=${SCHED_TRACES:-"1 2 3 4"}
PEER=${COLOSIM_PEER_MURI:-}
PEER_TIMEOUT=${COLOSIM_PEER_TIMEOUT:-900}
PYTHON=${PYTHON:-python3}
CLUSTER=8x8:v100-32gb:cpus=92:mem_gb=520
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -f "$SHARED/trace1.csv" ]; then
	echo "bench sched: skipped ($SHARED/trace1.csv absent; colosim traces fetch muri)"
	exit 0
fi
if [ -n "$PEER" ] && [ ! -f "$PEER/run_sim.py" ]; then
	echo "bench sched: COLOSIM_PEER_MURI=$PEER has no run_sim.py; peer not run"
	PEER=
fi
IMPORT_OPT=
SPREAD_OPT=
if [ -n "$PEER" ]; then
	IMPORT_OPT="--iter-scale 1.015"
	SPREAD_OPT="--spread-cost none"
fi
SHARED_ABS=$(cd "$SHARED" && pwd)
SPEC=$SHARED_ABS/cluster_n8g8.csv

field() {
	printf '%s\n' "$2" | tr ',{}' '\n\n\n' |
		sed -n "s/^ *\"$1\": *//p" | head -1
}

figure() {  # trace policy -> the supplied figure for Muri's simulator
	case "$1:$2" in
	2:srtf) echo 71 ;;
	2:tiresias) echo 109 ;;
	3:muri-s) echo 48 ;;
	1:muri-s|2:muri-s|4:muri-s) echo ">=900" ;;
	*) echo "" ;;
	esac
}

schedule() {  # colosim policy -> Muri's run_sim.py --schedule
	case "$1" in
	srtf) echo shortest ;;
	srsf) echo shortest-gpu ;;
	tiresias) echo dlas-gpu ;;
	muri-s) echo multi-resource-blossom-same-gpu ;;
	muri-l) echo multi-resource-blossom-same-gpu-unaware ;;
	*) echo "" ;;
	esac
}

# run_peer TRACE_CSV SCHEDULE -> "cpu_s jct_mean_s makespan_s" (cpu
# prefixed >= when stopped; jct/makespan "-" then)
run_peer() {
	rm -rf "$TMP/peer"
	mkdir -p "$TMP/peer"
	rc=0
	(cd "$PEER" && /usr/bin/time -f '%U %S' -o "$TMP/ptime" \
		timeout "$PEER_TIMEOUT" "$PYTHON" run_sim.py \
		--cluster_spec="$SPEC" --scheme=yarn --trace_file="$1" \
		--schedule="$2" --log_path="$TMP/peer" --multi_resource 4 \
		>/dev/null 2>"$TMP/perr") || rc=$?
	cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { c = $1 + $2 } END { print c + 0 }' \
		"$TMP/ptime")
	if [ "$rc" -ne 0 ] || [ ! -f "$TMP/peer/job.csv" ]; then
		echo ">=$cpu - -"
		return
	fi
	awk -F, -v c="$cpu" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ s += $h["JCT"]; n++; if ($h["end_time"] > m) m = $h["end_time"] }
		END { if (n) printf "%s %.6f %.6f\n", c, s / n, m;
		      else printf ">=%s - -\n", c }' "$TMP/peer/job.csv"
}

for t in $TRACES; do
	# shellcheck disable=SC2086
	"$BUILD/colosim" import muri "$SHARED/trace$t.csv" -o "$TMP/t$t.csv" \
		-q $IMPORT_OPT
	for p in $POLICIES; do
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$BUILD/colosim" replay \
			"$TMP/t$t.csv" --policy "$p" --cluster "$CLUSTER" \
			$SPREAD_OPT --json >"$TMP/out"
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
		out=$(cat "$TMP/out")
		jct=$(field jct_mean_s "$out")
		mk=$(field makespan_s "$out")
		line="bench sched trace=trace$t policy=$p"
		line="$line jobs=$(field jobs_total "$out") cpu_s=$cpu"
		line="$line jct_mean_s=$jct makespan_s=$mk"
		pc=
		s=$(schedule "$p")
		if [ -n "$PEER" ] && [ -n "$s" ]; then
			# shellcheck disable=SC2046
			set -- $(run_peer "$SHARED_ABS/trace$t.csv" "$s")
			pc=$1
			pj=$2
			pm=$3
		else
			pc=$(figure "$t" "$p")
			pj=-
		fi
		if [ -n "$pc" ]; then
			n=${pc#>=}
			r=$(awk -v a="$n" -v b="$cpu" 'BEGIN { printf "%.0f", a / (b > 0.005 ? b : 0.005) }')
			[ "$n" = "$pc" ] || r=">=$r"
			line="$line peer_cpu_s=$pc ratio=$r"
		fi
		if [ "$pj" != "-" ]; then
			line="$line peer_jct_mean_s=$pj peer_makespan_s=$pm"
			line="$line $(awk -v a="$jct" -v b="$pj" -v c="$mk" -v d="$pm" 'BEGIN {
				printf "jct_diff=%+.4f%% makespan_diff=%+.4f%%",
				100 * (a - b) / b, 100 * (c - d) / d }')"
		fi
		echo "$line"
	done
done
