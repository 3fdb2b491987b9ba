/*
** list_models.c: prints the model zoo as a table (list_models.h).
*/
#include "experiments/cli/list_models.h"

#include "models/zoo.h"

int cli_list_models(FILE *out)
{
	size_t i, n = zoo_count();

	fprintf(out, "%-12s %-14s %-6s %12s %9s %11s %10s %10s %6s %5s\n",
		"name", "model", "task", "params", "fp32_MB", "fwd_GFLOP",
		"act_trn_MB", "act_inf_MB", "groups", "input");
	for (i = 0; i < n; i++) {
		const struct zoo_model *m = zoo_at(i);
		fprintf(out, "%-12s %-14s %-6s %12llu %9.1f %11.3f %10.1f "
			"%10.1f %6zu %5d\n", m->name, m->display, m->task,
			(unsigned long long)m->params, m->params * 4.0 / 1e6,
			m->fwd_flops / 1e9, m->act_train_bytes / 1e6,
			m->act_infer_bytes / 1e6, m->ngroups, m->input_len);
	}
	fprintf(out, "\nper sample: fwd_GFLOP counts 2 FLOPs per multiply-add; "
		"act_trn_MB = activations kept\nfor backward (FP32); act_inf_MB "
		"= peak live activations in inference (FP32);\ninput = image "
		"side or sequence length.  Sources:\n");
	for (i = 0; i < n; i++)
		fprintf(out, "  %-12s %s\n", zoo_at(i)->name,
			zoo_at(i)->source);
	return ferror(out) ? 1 : 0;
}
