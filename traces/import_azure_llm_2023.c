/*
** import_azure_llm_2023.c: Azure LLM inference trace 2023 (Splitwise;
** AzureLLMInferenceTrace_{code,conv}.csv) -> one inference service per
** input file and its arrival file.
**
** Mapping (docs/TRACE_FORMAT.md, "azure-llm-2023"): TIMESTAMP -> one
** request (seconds after the earliest request over all inputs, so two
** services keep their relative timing) with its ContextTokens and
** GeneratedTokens as prompt and output tokens, in a request file (header
** t_s,prompt_tokens,output_tokens).  An infer row (the default: llama-7b
** stands in, batch 8) replays the times only; with --llm the row is an
** llm service of llama-2-70b (Splitwise's evaluation model), max 256
** sequences per iteration, whose replicas serve each request's tokens.
** The SLO (--slo-ms, default 10000 ms) is an assumption; every choice is
** recorded as a note.
*/
#include "traces/import_csv.h"

static const char *const azure_nums[] = {
	"ContextTokens", "GeneratedTokens", NULL
};

static const struct imp_req_spec azure_spec = {
	.time_col = "TIMESTAMP",
	.status_col = NULL,
	.num_cols = azure_nums,
	.model = "llama-7b",
	.model_note = "model llama-7b, batch 8 assumed (the zoo's smallest "
		      "LLM; see --model, --batch)",
	.batch = 8,
	.slo_ms = 10000.0,
	.slo_note = "SLO 10000 ms assumed (no SLO in the trace; see --slo-ms)",
	.prompt_col = "ContextTokens",
	.output_col = "GeneratedTokens",
	.llm_model = "llama-2-70b",
	.llm_note = "llm model llama-2-70b, 256 sequences per iteration "
		    "assumed (Splitwise's evaluation model; see --model, "
		    "--batch)",
	.llm_batch = 256,
};

static int azure_file(struct imp_ctx *c, const char *path,
		      struct sim_err *err)
{
	return imp_request_file(c, path, &azure_spec, err);
}

const struct imp_format imp_fmt_azure_llm_2023 = {
	"azure-llm-2023",
	"Azure LLM inference trace 2023 -> one inference service per file "
	"with its arrival file",
	"AzureLLMInferenceTrace_code.csv and/or AzureLLMInferenceTrace_conv.csv",
	azure_file,
	NULL,
	0
};
