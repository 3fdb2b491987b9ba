/*
** cmd_corun.c: `colosim corun JOB JOB [JOB...] --device NAME --mode M
** [--json]`: what these training jobs do when they share one GPU
** (models/corun.h; docs/MODEL.md, "Duty cycles").  Exit status: 0, 1 on a
** system failure, 2 on bad usage or jobs that do not fit together.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "experiments/cli/cli.h"
#include "models/corun.h"
#include "models/device.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: colosim corun JOB JOB [JOB...] --device NAME "
		   "--mode MODE [--json]\n"
		   "                    [--devices DIR]\n\n"
		   "Runs the training jobs together on one GPU through the "
		   "GPU model a replay\nuses and prints each job's solo and "
		   "co-located iterations per second.\n\n"
		   "  JOB            MODEL[:BATCH[:amp]] (colosim list models; "
		   "batch defaults to\n"
		   "                 the model's, precision to fp32)\n"
		   "  --device NAME  the GPU (colosim list devices)\n"
		   "  --mode MODE    timeslice, mps, streams, or mig:PROFILE "
		   "(one PROFILE slice\n"
		   "                 per job, e.g. mig:3g.40gb)\n"
		   "  --json         one JSON object: device, mode, jobs "
		   "(model, batch,\n"
		   "                 solo_steps_per_s, steps_per_s, normalized),"
		   " combined_normalized\n"
		   "  --devices DIR  device profiles (default: as colosim list "
		   "devices)\n\n"
		   "Exit status: 0, 1 system failure, 2 bad usage or jobs that "
		   "do not fit.\n");
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
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "devices", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *devname = NULL, *modestr = NULL, *devdir = NULL;
	const char *mig = NULL;
	struct corun_job jobs[CORUN_MAX_JOBS];
	struct dev_catalog cat;
	const struct dev_profile *d;
	struct sim_err err;
	enum gpu_mode mode;
	double comb;
	int c, json = 0, n = 0, i, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'm': modestr = optarg; break;
		case 'j': json = 1; break;
		case 'D': devdir = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			return cli_usage_error("corun: unknown option or missing "
					       "value '%s' (try --help)",
					       argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return cli_missing("corun", "two or more jobs",
				   "colosim corun JOB JOB [JOB...] --device "
				   "NAME --mode MODE");
	if (argc - optind > CORUN_MAX_JOBS)
		return cli_usage_error("corun: %d jobs, at most %d",
				       argc - optind, CORUN_MAX_JOBS);
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
	for (i = optind; i < argc; i++)
		if (corun_parse_job(argv[i], &jobs[n++], &err) != 0)
			return cli_report(&err);
	if (dev_catalog_load(&cat, devdir ? devdir : dev_default_dir(),
			     &err) != 0)
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
