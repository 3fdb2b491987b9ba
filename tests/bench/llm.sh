#!/bin/sh
# llm.sh: LLM serving replay speed (part of `make bench`; docs/PERFORMANCE.md,
# "LLM serving").
#
#   sh tests/bench/llm.sh BUILD_DIR
#
# Replays the one-hour Azure LLM 2023 conversation trace (19,366 requests,
# ../shared/traces/azure-llm-2023) with `colosim llm serve --json` on one
# 8-GPU H100-SXM node, each configuration twice: with the paged KV cache and
# without paging (--no-paging: an unbounded cache, no admission limit, no
# preemption).  Prints
#   bench llm model=M replicas=R tp=T paging=P requests=... iterations=...
#         cpu_s=... iterations_per_s=...
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

one() {
	model=$1 reps=$2 paging=$3
	set -- "$BUILD/colosim" llm serve "$TRACE" --model "$model" --gpus 8 \
		--replicas "$reps" --device h100-sxm --long truncate --json
	[ "$paging" = 1 ] || set -- "$@" --no-paging
	start=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$@" >"$TMP/out" 2>/dev/null
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
	else
		"$@" >"$TMP/out" 2>/dev/null
		cpu=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
	fi
	awk -v m="$model" -v r="$reps" -v p="$paging" \
	    -v n="$(field "$TMP/out" submitted)" \
	    -v it="$(field "$TMP/out" iterations)" -v cpu="$cpu" 'BEGIN {
		if (cpu <= 0) cpu = 0.001
		printf "bench llm model=%s replicas=%d tp=%d paging=%d requests=%d iterations=%d cpu_s=%.3f iterations_per_s=%.0f\n",
		    m, r, 8 / r, p, n, it, cpu, it / cpu
	}'
}

for cfg in "llama-3-70b 1" "llama-3-8b 8"; do
	set -- $cfg
	one "$1" "$2" 1
	one "$1" "$2" 0
done
