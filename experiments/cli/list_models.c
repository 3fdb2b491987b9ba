/*
** list_models.c: prints the model zoo as a table (list_models.h).
*/
#include "experiments/cli/list_models.h"

#include "models/zoo.h"

int cli_list_models(FILE *out)
{
	size_t i, n = zoo_count();

	fprintf(out, "%-20s %-24s %-6s %12s %9s %11s %10s %10s %6s %5s "
		"%5s\n", "name", "model", "task", "params", "fp32_MB",
		"fwd_GFLOP", "act_trn_MB", "act_inf_MB", "groups", "input",
		"batch");
	for (i = 0; i < n; i++) {
		const struct zoo_model *m = zoo_at(i);
		fprintf(out, "%-20s %-24s %-6s %12llu %9.1f %11.3f %10.1f "
			"%10.1f %6zu %5d %5d\n", m->name, m->display, m->task,
			(unsigned long long)m->params, m->params * 4.0 / 1e6,
			m->fwd_flops / 1e9, m->act_train_bytes / 1e6,
			m->act_infer_bytes / 1e6, m->ngroups, m->input_len,
			m->default_batch);
	}
	fprintf(out, "\nper sample: fwd_GFLOP counts 2 FLOPs per multiply-add; "
		"act_trn_MB = activations kept\nfor backward (FP32); act_inf_MB "
		"= peak live activations in inference (FP32);\ninput = image "
		"side or sequence length; batch = the default batch of a "
		"job that names none.\nSources (and the workload each "
		"stands for):\n");
	for (i = 0; i < n; i++) {
		fprintf(out, "  %-20s %s\n", zoo_at(i)->name,
			zoo_at(i)->source);
		if (zoo_at(i)->origin != NULL && zoo_at(i)->origin[0] != '\0')
			fprintf(out, "  %-20s   workload: %s\n", "",
				zoo_at(i)->origin);
	}
	return ferror(out) ? 1 : 0;
}
