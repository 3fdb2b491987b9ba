#!/bin/sh
# traces_replay.sh: imports each public trace in ../shared/traces and
# replays it under the baseline policies; prints the tables of
# docs/TRACES.md.  Usage: experiments/traces_replay.sh [OUTDIR]
# (default /tmp/colosim-traces).  Run from the repository root after make.
set -e
T=${COLOSIM_SHARED_TRACES:-../shared/traces}
O=${1:-/tmp/colosim-traces}
C=build/colosim
mkdir -p "$O"

# table TRACE CLUSTER POLICY... : one markdown row per policy
table() {
	tr=$1; cl=$2; shift 2
	echo "| policy | done | failed | JCT mean s | JCT p95 s | queue mean s | slowdown | makespan s | SM util | requests | served | unserved | lat p50 ms | lat p99 ms | SLO att. | wall s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for p in "$@"; do
		if ! out=$($C replay "$tr" --policy "$p" --cluster "$cl" --json $EXTRA 2>&1); then
			echo "| $p | $out |"; continue
		fi
		printf '| %s |' "$p"
		for c in jobs_done jobs_failed jct_mean_s jct_p95_s queue_delay_mean_s slowdown_mean makespan_s sm_util_mean requests_total requests_served requests_unserved latency_p50_ms latency_p99_ms slo_attainment wall_s; do
			v=$(echo "$out" | sed -n "s/.*\"$c\": \([^,}]*\).*/\1/p")
			case "$v" in
			null|"") printf ' - |' ;;    # not applicable (NaN)
			*) printf ' %s |' "$(printf '%.4g' "$v")" ;;
			esac
		done
		echo
	done
}
ALL="exclusive timeslice mps mig colti"

echo "## alibaba-v2023, own cluster"
$C import alibaba-v2023 $T/alibaba-gpu-v2023/openb_pod_list_default.csv \
	$T/alibaba-gpu-v2023/openb_node_list_gpu_node.csv -o $O/ali23.csv -q
table $O/ali23.csv "$(cat $O/ali23.cluster)" $ALL
echo "## alibaba-v2023, --compress 20, 8x8:g2"
$C import alibaba-v2023 $T/alibaba-gpu-v2023/openb_pod_list_default.csv \
	$T/alibaba-gpu-v2023/openb_node_list_gpu_node.csv --compress 20 \
	-o $O/ali23x20.csv -q
table $O/ali23x20.csv 8x8:g2 $ALL

echo "## alibaba-v2025, --sample 0.1 --rate 0.001, 43x8:a100-40gb"
$C import alibaba-v2025 $T/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv \
	--sample 0.1 --rate 0.001 -o $O/ali25.csv -q
table $O/ali25.csv 43x8:a100-40gb $ALL
echo "## alibaba-v2025, full, 100 req/s, --horizon 2, 427x8:a100-40gb"
$C import alibaba-v2025 $T/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv \
	-o $O/ali25full.csv -q
EXTRA="--horizon 2" table $O/ali25full.csv 427x8:a100-40gb exclusive timeslice

echo "## alibaba-genai-v2026, 1x1:a100-40gb"
$C import alibaba-genai-v2026 $T/alibaba-genai-v2026/lora_request_trace.csv \
	-o $O/genai.csv -q
table $O/genai.csv 1x1:a100-40gb $ALL

echo "## azure-llm-2023, --replicas 4, 1x8:a100-80gb"
$C import azure-llm-2023 $T/azure-llm-2023/AzureLLMInferenceTrace_code.csv \
	$T/azure-llm-2023/AzureLLMInferenceTrace_conv.csv --replicas 4 \
	-o $O/azure.csv -q
table $O/azure.csv 1x8:a100-80gb $ALL

echo "## tiresias, 32x4:v100-16gb"
$C import tiresias $T/tiresias/60_job.csv -o $O/tir.csv -q
table $O/tir.csv 32x4:v100-16gb $ALL
echo "## tiresias, 2x4:a100-40gb"
table $O/tir.csv 2x4:a100-40gb $ALL
