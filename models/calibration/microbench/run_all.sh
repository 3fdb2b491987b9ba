#!/bin/sh
# run_all.sh: runs the whole colosim calibration suite on one GPU and writes
# one raw CSV (docs/CALIBRATION.md describes it), then `colosim calibrate`
# turns that into device-profile parameters.
#
#   run_all.sh [-o RAW.csv] [--device I] [--trials N] [--quick]
#              [--uvm-oversub] [--no-mps] [--no-timeslice]
#
# Run it from the build folder (build/microbench/) or anywhere: it finds
# the benchmarks beside itself.  The GPU should be otherwise idle.  The
# script never changes the GPU's clocks, power limit, compute mode or MIG
# layout.  It starts, and always stops again:
#   - the time-slice processes (2, 3 and 4 at once) and the co-run pairs;
#   - a private MPS control daemon (its pipe and log folders in a temporary
#     folder, so it cannot meet another user's daemon), for mps_sweep and
#     the MPS co-run pairs; stopped with `quit` before the script ends.
# --uvm-oversub lets uvm_oversub ask for more managed memory than is free:
# on some machines that can hang the GPU, hence opt-in.
# A benchmark that fails is reported and the others still run; the exit
# status is then 1, and the CSV holds every row that was measured.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=""
DEVICE=0
TRIALS=10
QUICK=""
UVM_OVERSUB=""
DO_MPS=1
DO_TS=1
while [ $# -gt 0 ]; do
	case "$1" in
	-o) OUT=$2; shift ;;
	--device) DEVICE=$2; shift ;;
	--trials) TRIALS=$2; shift ;;
	--quick) QUICK=--quick ;;
	--uvm-oversub) UVM_OVERSUB=--oversub ;;
	--no-mps) DO_MPS=0 ;;
	--no-timeslice) DO_TS=0 ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "run_all.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$OUT" ] || OUT="raw-$(hostname)-$(date -u +%Y%m%d-%H%M%S).csv"
for b in capacity hbm_stream compute_peak memcpy_sweep launch alloc \
	 uvm_oversub timeslice mps_sweep corun_matrix; do
	[ -x "$HERE/$b" ] || { echo "run_all.sh: $HERE/$b missing: run 'make microbench'" >&2; exit 2; }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/colosim-mb.XXXXXX")
PART="$OUT.part"
PIDS=""
MPS_UP=0
FAILED=0
export CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-$DEVICE}"
COMMON="--trials $TRIALS $QUICK"

stop_mps() {
	if [ "$MPS_UP" = 1 ]; then
		echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true
		MPS_UP=0
		sleep 1
	fi
}
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	stop_mps
	unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "run_all.sh: $*" >&2; }
bench() {   # bench NAME ARGS...: appends its rows, notes a failure
	name=$1; shift
	log "$name $*"
	if ! "$HERE/$name" $COMMON "$@" >>"$PART"; then
		log "FAILED: $name $*"
		FAILED=1
	fi
}

# Two processes at once: fg times kernel $1 beside bg's kernel $2.
pair() {
	mode=$1 fg=$2 bg=$3
	d="$TMP/pair-$mode-$fg-$bg"
	mkdir -p "$d"
	"$HERE/corun_matrix" $COMMON --mode "$mode" --bg "$bg" --sync "$d" \
		>/dev/null &
	bgpid=$!
	PIDS="$PIDS $bgpid"
	if ! "$HERE/corun_matrix" $COMMON --mode "$mode" --fg "$fg" \
		--with "$bg" --sync "$d" >>"$PART"; then
		log "FAILED: corun_matrix $mode $fg+$bg"
		FAILED=1
		touch "$d/fg_done"
	fi
	wait "$bgpid" || { log "FAILED: background $bg"; FAILED=1; }
	PIDS=$(echo "$PIDS" | sed "s/ $bgpid//")
}

echo "schema,device,mode,bench,variant,param,param_value,metric,unit,n,median,p05,p95,min,max" >"$PART"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,compute_mode \
	--format=csv >&2 2>/dev/null || true

bench capacity
bench hbm_stream
bench compute_peak
bench memcpy_sweep
bench launch
bench alloc
bench uvm_oversub $UVM_OVERSUB
bench corun_matrix --solo
bench corun_matrix --streams

if [ "$DO_TS" = 1 ]; then
	for n in 2 3 4; do
		start=$(( $(date +%s%N) + 3000000000 ))
		logs=""
		i=0
		while [ $i -lt $n ]; do
			"$HERE/timeslice" --spin-ms 2000 --start-at "$start" \
				--log "$TMP/ts-$n-$i.log" &
			PIDS="$PIDS $!"
			logs="$logs $TMP/ts-$n-$i.log"
			i=$((i + 1))
		done
		ok=1
		for p in $PIDS; do wait "$p" || ok=0; done
		PIDS=""
		if [ $ok = 1 ]; then
			bench timeslice --analyze "$n" $logs
		else
			log "FAILED: timeslice with $n processes"; FAILED=1
		fi
	done
	for fg in compute memory l2 small; do
		for bg in compute memory l2 small; do
			pair timeslice $fg $bg
		done
	done
fi

if [ "$DO_MPS" = 1 ]; then
	if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
		export CUDA_MPS_PIPE_DIRECTORY="$TMP/mps-pipe"
		export CUDA_MPS_LOG_DIRECTORY="$TMP/mps-log"
		mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
		if nvidia-cuda-mps-control -d; then
			MPS_UP=1
			for p in 10 20 30 40 50 60 70 80 90 100; do
				export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p
				bench mps_sweep
			done
			unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
			for fg in compute memory l2 small; do
				for bg in compute memory l2 small; do
					pair mps $fg $bg
				done
			done
			stop_mps
		else
			log "FAILED: could not start the MPS daemon"; FAILED=1
		fi
	else
		log "nvidia-cuda-mps-control not found: MPS benchmarks skipped"
	fi
fi

mv "$PART" "$OUT"
log "wrote $OUT ($(($(wc -l <"$OUT") - 1)) rows)"
log "next: colosim calibrate $OUT -o models/devices/NAME.ini"
exit $FAILED
