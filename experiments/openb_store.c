/*
** openb_store.c: records the runs of the openb experiment (`colosim openb
** --db FILE`) in the SQLite results store (experiments/store.h,
** docs/RESULTS.md), so that `colosim report FILE` sets the policies side
** by side.
**
** The experiment row's config text is a description of the inputs (the
** three file paths and the FGD threshold), so its hash tells two runs of
** the same inputs apart from two runs of different ones: writing again
** under the same name with the same inputs replaces the policies' runs;
** with other inputs it is refused (SIM_EEXIST).  One run per policy: key,
** policy and variant are the policy's lower-case name; trace and cluster
** are the arrivals and node files; metrics are alloc_pct_kNNN (the curve,
** openb_curve_to_result), placed, failed, arrivals, gpus_total, and
** wall_s (the replay's wall time, also in the run row).
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "experiments/openb.h"
#include "experiments/store.h"
#include "sim/rng.h"

int openb_store_runs(const char *db, const struct openb_store_info *info,
		     const char *const *names, const struct openb_run *runs,
		     const double *const *curves, const double *wall_s, int n,
		     struct sim_err *err)
{
	struct store *s = NULL;
	struct exp_config cfg;
	char text[2048], hash[17], pname[2][32], thr[32];
	int64_t id;
	int i, rc, k;

	if (n < 1 || n > 2)
		return sim_err_set(err, SIM_EINVAL, "openb store: %d runs "
				   "(1 or 2 expected)", n);
	snprintf(text, sizeof text, "# colosim openb (experiments/openb.c)\n"
		 "nodes = %s\narrivals = %s\ntiebreak = %s\n"
		 "threshold_pct = %.17g\n", info->nodes, info->arrivals,
		 info->tiebreak, info->threshold_pct);
	memset(&cfg, 0, sizeof cfg);
	cfg.name = (char *)(uintptr_t)info->experiment;
	cfg.path = (char *)(uintptr_t)"colosim openb";
	cfg.text = text;
	cfg.text_len = strlen(text);
	snprintf(cfg.hash, sizeof cfg.hash, "%016llx",
		 (unsigned long long)sim_hash_str(text));
	cfg.trace = (char *)(uintptr_t)info->arrivals;
	cfg.cluster = (char *)(uintptr_t)info->nodes;
	cfg.replications = 1;

	if ((rc = store_open(&s, db, STORE_WRITE, err)) != 0)
		return rc;
	rc = store_find_experiment(s, info->experiment, &id, hash, err);
	if (rc == 0 && strcmp(hash, cfg.hash) != 0) {
		rc = sim_err_set(err, SIM_EEXIST, "%s: experiment '%s' exists "
				 "with other openb inputs; pick another "
				 "--experiment", db, info->experiment);
	} else if (rc == SIM_ENOENT) {
		sim_err_clear(err);
		rc = store_add_experiment(s, &cfg, n, &id, err);
	}
	snprintf(thr, sizeof thr, "%.17g", info->threshold_pct);
	for (i = 0; i < n && rc == 0; i++) {
		struct exp_run_spec spec;
		struct exp_kv kv = { (char *)(uintptr_t)"threshold_pct", thr,
				     0 };
		struct run_result res;

		for (k = 0; names[i][k] != '\0' && k < 31; k++)
			pname[i][k] = (char)tolower((unsigned char)names[i][k]);
		pname[i][k] = '\0';
		memset(&spec, 0, sizeof spec);
		spec.experiment = info->experiment;
		spec.index = i;
		spec.key = pname[i];
		spec.variant = pname[i];
		spec.setting = (char *)(uintptr_t)"";
		spec.policy = pname[i];
		spec.params = strcmp(pname[i], "fgd") == 0 ? &kv : NULL;
		spec.nparams = spec.params != NULL;
		spec.trace = (char *)(uintptr_t)info->arrivals;
		spec.cluster = (char *)(uintptr_t)info->nodes;
		run_result_init(&res);
		res.wall_s = wall_s[i];
		res.events = runs[i].n;
		rc = openb_curve_to_result(&res, curves[i], OPENB_KMAX);
		if (rc == 0)
			rc = run_result_set(&res, "placed",
					    (double)runs[i].placed);
		if (rc == 0)
			rc = run_result_set(&res, "failed",
					    (double)runs[i].failed);
		if (rc == 0)
			rc = run_result_set(&res, "arrivals",
					    (double)runs[i].n);
		if (rc == 0)
			rc = run_result_set(&res, "gpus_total",
					    (double)runs[i].gpus_total);
		if (rc == 0)
			rc = run_result_set(&res, "wall_s", wall_s[i]);
		if (rc != 0)
			rc = sim_err_set(err, rc, "openb store: out of memory");
		else
			rc = store_put_run(s, id, &spec, STORE_RUN_DONE, NULL,
					   &res, err);
		run_result_fini(&res);
	}
	store_close(s);
	return rc;
}
