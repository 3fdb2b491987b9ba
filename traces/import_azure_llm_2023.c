/*
** import_azure_llm_2023.c: Azure LLM inference trace 2023 (Splitwise;
** AzureLLMInferenceTrace_{code,conv}.csv) -> one inference service per
** input file and its arrival file.
**
** Mapping (docs/TRACE_FORMAT.md, "azure-llm-2023"): TIMESTAMP -> one
** arrival (seconds after the earliest request over all inputs, so two
** services keep their relative timing); ContextTokens and GeneratedTokens
** are checked to be integers and dropped (trace v1 has no per-request
** size).  The services ran GPT-class LLMs larger than the zoo's; the zoo's
** only LLM, llama-7b, stands in (--model), and the SLO (--slo-ms, default
** 10000 ms) is an assumption; both are recorded as notes.
*/
#include "traces/import_csv.h"

static const char *const azure_nums[] = {
	"ContextTokens", "GeneratedTokens", NULL
};

static const struct imp_req_spec azure_spec = {
	"TIMESTAMP",
	NULL,
	azure_nums,
	"llama-7b",
	"model llama-7b, batch 8 assumed (the zoo's only LLM; see --model, "
	"--batch)",
	8,
	10000.0,
	"SLO 10000 ms assumed (no SLO in the trace; see --slo-ms)"
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
