#!/bin/sh
# llm.sh: LLM serving replay speed (part of `make bench`; docs/PERFORMANCE.md,
# "LLM serving").
#
#   sh tests/bench/llm.sh BUILD_DIR
#
# The one-hour Azure LLM 2023 conversation trace (19,366 requests,
# ../shared/traces/azure-llm-2023) on one 8-GPU H100-SXM node, two ways:
#   serve   `colosim llm serve --json`: the dedicated-replica reference
#           (experiments/llm_serve.c), outside the world;
#   replay  `colosim replay --json` of the same requests imported as an llm
#           service (colosim import azure-llm-2023 --llm): the world's LLM
#           tenant kind, every iteration a work unit of the GPU model;
# each with the paged KV cache and without paging (serve --no-paging,
# replay --llm kv=unbounded: no admission limit, no preemption).  Prints
#   bench llm mode=M model=M replicas=R tp=T paging=P requests=...
#         iterations=... cpu_s=... iterations_per_s=...
# cpu_s is user + system of the process (from /usr/bin/time when it
# exists, else wall-clock).  Skips with a message when the trace is absent.
set -eu

BUILD=${1:-build}
TRACE=${LLM_TRACE:-../shared/traces/azure-llm-2023/AzureLLMInferenceTrace_conv.csv}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -r "$TRACE" ]; then
	echo "bench llm: $TRACE absent, skipped"
	exit 0
fi

field() {
	tr ',{}' '\n\n\n' <"$1" | sed -n "s/^ *\"$2\": *//p" | head -1
}

# mode model replicas paging
one() {
	mode=$1 model=$2 reps=$3 paging=$4 tp=$((8 / $3))
	if [ "$mode" = serve ]; then
		set -- "$BUILD/colosim" llm serve "$TRACE" --model "$model" \
			--gpus 8 --replicas "$reps" --device h100-sxm \
			--long truncate --json
		[ "$paging" = 1 ] || set -- "$@" --no-paging
		nf=submitted itf=iterations
	else
		"$BUILD/colosim" import azure-llm-2023 "$TRACE" -o "$TMP/t.csv" \
			--llm --model "$model" --replicas "$reps" -q
		kv=reserve
		[ "$paging" = 1 ] || kv=unbounded
		set -- "$BUILD/colosim" replay "$TMP/t.csv" --policy exclusive \
			--cluster 1x8:h100-sxm --llm tp=$tp --llm long=truncate \
			--llm route=rr --llm kv=$kv --json
		nf=llm_requests_total itf=llm_iterations
	fi
	start=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$@" >"$TMP/out" 2>/dev/null
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
	else
		"$@" >"$TMP/out" 2>/dev/null
		cpu=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
	fi
	awk -v mode="$mode" -v m="$model" -v r="$reps" -v p="$paging" \
	    -v n="$(field "$TMP/out" $nf)" -v it="$(field "$TMP/out" $itf)" \
	    -v cpu="$cpu" 'BEGIN {
		if (cpu <= 0) cpu = 0.001
		printf "bench llm mode=%s model=%s replicas=%d tp=%d paging=%d requests=%d iterations=%d cpu_s=%.3f iterations_per_s=%.0f\n",
		    mode, m, r, 8 / r, p, n, it, cpu, it / cpu
	}'
}

for cfg in "llama-3-70b 1" "llama-3-8b 8"; do
	set -- $cfg
	for mode in serve replay; do
		one $mode "$1" "$2" 1
		one $mode "$1" "$2" 0
	done
done
