/*
** corun.c: training jobs sharing one GPU (see corun.h).
**
** The jobs become GPU tenants exactly as the world makes them
** (sim/world/world_act.c: allocation = the peak footprint with the trace's
** default optimizer, momentum; MPS cap 1; the training work profile), all
** busy from time 0; the speeds the GPU model sets are the co-located rates.
*/
#include "models/corun.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int corun_parse_job(const char *s, struct corun_job *out, struct sim_err *err)
{
	char name[64];
	const char *c1, *c2;
	size_t n = strcspn(s, ":");

	memset(out, 0, sizeof *out);
	out->prec = WL_PREC_FP32;
	if (n == 0 || n >= sizeof name)
		return sim_err_set(err, SIM_EINVAL, "job '%s': expected "
				   "MODEL[:BATCH[:amp]]", s);
	memcpy(name, s, n);
	name[n] = '\0';
	out->m = zoo_find(name);
	if (out->m == NULL) {
		char names[1024];

		zoo_names(names, sizeof names);
		return sim_err_set(err, SIM_EINVAL, "job '%s': unknown model "
				   "'%s' (known: %s)", s, name, names);
	}
	out->batch = out->m->default_batch;
	if (s[n] == '\0')
		return 0;
	c1 = s + n + 1;
	c2 = strchr(c1, ':');
	if (*c1 != ':' && *c1 != '\0') {
		long b;
		char *end;

		errno = 0;
		b = strtol(c1, &end, 10);
		if (end == c1 || (*end != '\0' && *end != ':') || errno != 0 ||
		    b < 1 || b > 1000000)
			return sim_err_set(err, SIM_EINVAL, "job '%s': batch: "
					   "expected a whole number in 1..1000000",
					   s);
		out->batch = (int)b;
	}
	if (c2 != NULL) {
		if (strcasecmp(c2 + 1, "amp") != 0)
			return sim_err_set(err, SIM_EINVAL, "job '%s': expected "
					   "'amp' after the batch, got '%s'", s,
					   c2 + 1);
		out->prec = WL_PREC_MIXED;
	}
	return 0;
}

/* The job's solo iteration rate on the whole device. */
static double solo_rate(const struct dev_profile *d, const struct corun_job *j)
{
	return 1e9 / (double)wl_train_iter_ns(j->m, d, j->batch, j->prec);
}

int corun_run(const struct dev_profile *d, enum gpu_mode mode,
	      const char *mig_profile, struct corun_job *jobs, int n,
	      double *combined_normalized, struct sim_err *err)
{
	struct gpu_tenant t[CORUN_MAX_JOBS];
	const char *layout[CORUN_MAX_JOBS];
	struct gpu g;
	uint64_t need = 0, cap;
	int i, rc, mp = -1;

	if (n < 1 || n > CORUN_MAX_JOBS)
		return sim_err_set(err, SIM_EINVAL, "corun: %d jobs, 1 to %d "
				   "allowed", n, CORUN_MAX_JOBS);
	if (mode == GPU_MODE_EXCLUSIVE)
		return sim_err_set(err, SIM_EINVAL, "corun: mode exclusive "
				   "cannot share a GPU");
	if (mode == GPU_MODE_MIG) {
		mp = mig_profile != NULL ? dev_mig_find(d, mig_profile) : -1;
		if (mp < 0)
			return sim_err_set(err, SIM_ENOENT, "corun: %s has no "
					   "MIG profile '%s'", d->name,
					   mig_profile ? mig_profile : "");
	}
	for (i = 0; i < n; i++) {
		struct wl_train_mem m;

		wl_train_memory(jobs[i].m, d, jobs[i].batch, WL_OPT_MOMENTUM,
				jobs[i].prec, &m);
		jobs[i].mem_bytes = m.peak_bytes;
		jobs[i].solo_steps_per_s = solo_rate(d, &jobs[i]);
		wl_train_profile(jobs[i].m, d, jobs[i].batch, jobs[i].prec,
				 &jobs[i].prof);
		need += m.peak_bytes;
		if (mp >= 0 && m.peak_bytes > d->mig[mp].hbm_bytes)
			return sim_err_set(err, SIM_ENOSPC, "corun: %s:%d needs "
					   "%llu bytes, %llu free on a %s slice",
					   jobs[i].m->name, jobs[i].batch,
					   (unsigned long long)m.peak_bytes,
					   (unsigned long long)
					   d->mig[mp].hbm_bytes,
					   d->mig[mp].name);
	}
	cap = d->hbm_bytes;
	if (mp < 0 && need > cap)
		return sim_err_set(err, SIM_ENOSPC, "corun: the jobs need %llu "
				   "bytes together, %llu free on %s",
				   (unsigned long long)need,
				   (unsigned long long)cap, d->name);
	gpu_init(&g, d, 0, 0, mode, 0);
	if (mp >= 0) {
		for (i = 0; i < n; i++)
			layout[i] = d->mig[mp].name;
		rc = gpu_set_mig_layout(&g, layout, n, 0, err);
		if (rc != 0) {
			gpu_fini(&g);
			return rc;
		}
	}
	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].id = i;
		t[i].mem_bytes = jobs[i].mem_bytes;
		t[i].sm_cap = 1.0;
		t[i].slice = mp >= 0 ? i : -1;
		rc = gpu_attach(&g, &t[i], 0, 0, err);
		if (rc != 0) {
			gpu_fini(&g);
			return rc;
		}
	}
	for (i = 0; i < n; i++)
		gpu_begin(&g, &t[i], 1e15, &jobs[i].prof, 0);
	*combined_normalized = 0;
	for (i = 0; i < n; i++) {
		jobs[i].normalized = t[i].speed;
		jobs[i].steps_per_s = t[i].speed * jobs[i].solo_steps_per_s;
		*combined_normalized += t[i].speed;
	}
	gpu_fini(&g);
	return 0;
}
