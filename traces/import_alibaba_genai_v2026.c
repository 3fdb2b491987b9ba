/*
** import_alibaba_genai_v2026.c: Alibaba cluster-trace-v2026-GenAI
** (lora_request_trace.csv, Stable Diffusion serving) -> one inference
** service per input file and its arrival file.
**
** Mapping (docs/TRACE_FORMAT.md, "alibaba-genai-v2026"): gmt_create ->
** one arrival (seconds after the earliest request); predict_status is
** counted but every request is kept (a failed request still arrived and
** loaded the service).  exec_time_seconds, prompt lengths, image counts,
** steps, the base-model id and LoRA count are dropped: trace v1 has no
** per-request size, and colosim computes latency from its own model.
** The zoo has no diffusion model: --model (default bert-large) and the
** SLO (--slo-ms, default 60000) are assumptions, recorded as notes.
*/
#include "traces/import_csv.h"

static const struct imp_req_spec genai_spec = {
	.time_col = "gmt_create",
	.status_col = "predict_status",
	.num_cols = NULL,
	.model = "bert-large",
	.model_note = "model bert-large, batch 1 assumed for Stable Diffusion "
		      "(not in the zoo; see --model, --batch)",
	.batch = 1,
	.slo_ms = 60000.0,
	.slo_note = "SLO 60000 ms assumed (2.6x the 23 s median exec_time; "
		    "see --slo-ms)",
	/* no token counts (images, not tokens): an infer service only */
};

static int genai_file(struct imp_ctx *c, const char *path,
		      struct sim_err *err)
{
	return imp_request_file(c, path, &genai_spec, err);
}

const struct imp_format imp_fmt_alibaba_genai_v2026 = {
	"alibaba-genai-v2026",
	"Alibaba GenAI v2026 request trace -> one inference service per "
	"file with its arrival file",
	"lora_request_trace.csv",
	genai_file,
	NULL,
	0
};
