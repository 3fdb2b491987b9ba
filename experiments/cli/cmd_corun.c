/*
** cmd_corun.c: `colosim corun JOB JOB [JOB...] --device NAME --mode M
** [--json]`: what these training jobs do when they share one GPU
** (models/corun.h; docs/MODEL.md, "Duty cycles").  Exit status: 0, 1 on a
** system failure, 2 on bad usage or jobs that do not fit together.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "experiments/cli/cli.h"
#include "models/corun.h"
#include "models/device.h"

enum { O_DEVICE, O_MODE, O_JSON, O_DEVICES };

static const struct cli_opt opts[] = {
	[O_DEVICE] = { "device", 0, "NAME", "the GPU (colosim list devices)" },
	[O_MODE] = { "mode", 0, "MODE", "timeslice, mps, streams, or "
		     "mig:PROFILE (one PROFILE\nslice per job, e.g. "
		     "mig:3g.40gb)" },
	[O_JSON] = { "json", 0, NULL, "one JSON object: device, mode, jobs "
		     "(model, batch,\nprecision, solo_steps_per_s, "
		     "steps_per_s, normalized),\ncombined_normalized" },
	[O_DEVICES] = { "devices", 0, "DIR", "device profiles (default: as "
			"colosim list devices)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"corun", "colosim corun JOB JOB [JOB...] --device NAME --mode MODE "
	"[--json]",
	"Runs the training jobs together on one GPU through the GPU model a "
	"replay\nuses and prints each job's solo and co-located iterations "
	"per second.\nJOB is MODEL[:BATCH[:amp]] (colosim list models; the "
	"batch defaults to\nthe model's, the precision to fp32).", opts,
	"Exit status: 0, 1 system failure, 2 bad usage or jobs that do not "
	"fit."
};

struct corun_args {
	const char *dev, *mode, *devdir;
	const char *jobs[CORUN_MAX_JOBS + 1];
	int njobs, json;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct corun_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->njobs > CORUN_MAX_JOBS)
			return cli_usage_error("corun: at most %d jobs",
					       CORUN_MAX_JOBS);
		a->jobs[a->njobs++] = v;
		return 0;
	case O_DEVICE: a->dev = v; return 0;
	case O_MODE: a->mode = v; return 0;
	case O_JSON: a->json = 1; return 0;
	case O_DEVICES: a->devdir = v; return 0;
	}
	return 2;
}

static int print_json(const char *dev, const char *mode,
		      const struct corun_job *jobs, int n, double comb)
{
	json_t *o = json_object(), *arr = json_array();
	char *s;
	int i;

	if (o == NULL || arr == NULL)
		return 1;
	json_object_set_new(o, "device", json_string(dev));
	json_object_set_new(o, "mode", json_string(mode));
	for (i = 0; i < n; i++) {
		json_t *j = json_object();

		json_object_set_new(j, "model", json_string(jobs[i].m->name));
		json_object_set_new(j, "batch", json_integer(jobs[i].batch));
		json_object_set_new(j, "precision", json_string(
			wl_precision_name(jobs[i].prec)));
		json_object_set_new(j, "solo_steps_per_s",
				    json_real(jobs[i].solo_steps_per_s));
		json_object_set_new(j, "steps_per_s",
				    json_real(jobs[i].steps_per_s));
		json_object_set_new(j, "normalized",
				    json_real(jobs[i].normalized));
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "jobs", arr);
	json_object_set_new(o, "combined_normalized", json_real(comb));
	s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		       JSON_REAL_PRECISION(8));
	json_decref(o);
	if (s == NULL)
		return 1;
	printf("%s\n", s);
	free(s);
	return 0;
}

static int run(int argc, char **argv)
{
	struct corun_args a;
	const char *devname, *modestr, *devdir;
	const char *mig = NULL;
	struct corun_job jobs[CORUN_MAX_JOBS];
	struct dev_catalog cat;
	char dirbuf[4096];
	const struct dev_profile *d;
	struct sim_err err;
	enum gpu_mode mode;
	double comb;
	int json, n = 0, i, rc;

	memset(&a, 0, sizeof a);
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	devname = a.dev;
	modestr = a.mode;
	devdir = a.devdir;
	json = a.json;
	if (a.njobs < 2)
		return cli_missing("corun", "two or more jobs",
				   "colosim corun JOB JOB [JOB...] --device "
				   "NAME --mode MODE");
	if (devname == NULL)
		return cli_missing("corun", "--device NAME",
				   "colosim corun JOB JOB --device NAME --mode "
				   "MODE");
	if (modestr == NULL)
		return cli_missing("corun", "--mode MODE",
				   "colosim corun JOB JOB --device NAME --mode "
				   "MODE");
	if (strncmp(modestr, "mig:", 4) == 0) {
		mode = GPU_MODE_MIG;
		mig = modestr + 4;
	} else if (gpu_mode_parse(modestr, &mode) != 0 ||
		   mode == GPU_MODE_MIG || mode == GPU_MODE_EXCLUSIVE) {
		return cli_usage_error("corun: --mode: expected timeslice, mps, "
				       "streams or mig:PROFILE, got '%s'",
				       modestr);
	}
	sim_err_clear(&err);
	for (i = 0; i < a.njobs; i++)
		if (corun_parse_job(a.jobs[i], &jobs[n++], &err) != 0)
			return cli_report(&err);
	if (dev_find_dir(devdir, dirbuf, sizeof dirbuf, &err) != 0 ||
	    dev_catalog_load(&cat, dirbuf, &err) != 0)
		return cli_report(&err);
	d = dev_catalog_find(&cat, devname);
	if (d == NULL) {
		char names[1024];

		dev_catalog_names(&cat, names, sizeof names);
		dev_catalog_fini(&cat);
		return cli_usage_error("corun: unknown device '%s' (known: %s)",
				       devname, names);
	}
	rc = corun_run(d, mode, mig, jobs, n, &comb, &err);
	if (rc != 0) {
		dev_catalog_fini(&cat);
		if (rc == SIM_ENOSPC) {
			fprintf(stderr, "colosim: %s\n", err.msg);
			return 2;
		}
		return cli_report(&err);
	}
	if (json) {
		rc = print_json(d->name, modestr, jobs, n, comb);
	} else {
		printf("device %s, mode %s\n", d->name, modestr);
		printf("%-22s %6s %5s %14s %10s %11s\n", "job", "batch", "prec",
		       "solo steps/s", "steps/s", "normalized");
		for (i = 0; i < n; i++)
			printf("%-22s %6d %5s %14.4g %10.4g %11.3f\n",
			       jobs[i].m->name, jobs[i].batch,
			       wl_precision_name(jobs[i].prec),
			       jobs[i].solo_steps_per_s, jobs[i].steps_per_s,
			       jobs[i].normalized);
		printf("combined normalized throughput %.3f\n", comb);
	}
	dev_catalog_fini(&cat);
	return rc;
}

const struct cli_cmd cli_cmd_corun = {
	"corun", "what these training jobs do sharing one GPU", run
};
