/*
** gen.c: the synthetic trace generator (gen.h).
**
** Streams (sim/rng.h), all under opts->seed, index 0: "gen.arrival" (job
** gaps), "gen.kind" (train or infer), "gen.model", "gen.size" (batch,
** GPUs, share, precision, optimizer, SLO), "gen.duration" (training
** durations), "gen.infer" (request rates).  Each job takes a fixed number
** of draws from each stream it uses, so the output is a pure function of
** the options.  Numbers are printed with fixed formats: the same options
** give the same bytes on every run and machine with the same libc.
*/
#include "traces/gen.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>

#include "models/llm.h"
#include "models/zoo.h"
#include "sim/file.h"
#include "sim/num.h"
#include "sim/rng.h"
#include "traces/trace.h"

const char *const gen_keys[][2] = {
	{ "seed", "master seed (default 1)" },
	{ "jobs", "number of rows (default 100)" },
	{ "rate", "mean job arrivals per second (default 0.01)" },
	{ "arrival", "job arrivals: poisson | bursty (default poisson)" },
	{ "burst-cv", "bursty: coefficient of variation of the gaps (default 3)" },
	{ "infer-frac", "fraction of rows that are services (default 0.3)" },
	{ "models", "model mix (default resnet50:3,resnet152:1,vgg16:1,"
		    "inception3:1,mobilenetv2:1,bert-base:2,gpt2:1)" },
	{ "train-batch", "per-GPU batch mix (default 32:1,64:2,128:1)" },
	{ "infer-batch", "max batch mix of services (default 8:1,16:1,32:1)" },
	{ "gpus", "GPU-count mix (default 1:6,2:2,4:1,8:1)" },
	{ "share", "GPU-share mix (default 1:1)" },
	{ "optimizers", "optimizer mix (default momentum:2,adam:1,sgd:1)" },
	{ "slo-ms", "service SLO mix in ms (default 50:1,100:2,200:1)" },
	{ "mixed-frac", "fraction of training in mixed precision (default 0.5)" },
	{ "dur-median-s", "median training duration, s (default 3600)" },
	{ "dur-sigma", "lognormal sigma of durations (default 1.0)" },
	{ "infer-rate-median", "median service request rate, req/s (default 50)" },
	{ "infer-rate-sigma", "lognormal sigma of request rates (default 0.5)" },
	{ "infer-arrival", "services: poisson | rates (default poisson)" },
	{ "infer-duration-s", "service lifetime, s; 0 = open (default 3600)" },
	{ "batch-timeout-ms", "services' batching timeout, ms (default 2)" },
	{ "llm-frac", "fraction of rows that are LLM services (default 0; "
		      "needs -o)" },
	{ "llm-models", "LLM architecture mix (default llama-3-8b:1)" },
	{ "llm-replicas", "replicas mix of LLM services (default 1:1)" },
	{ "llm-rate-median", "median LLM request rate, req/s (default 2)" },
	{ "llm-rate-sigma", "lognormal sigma of LLM request rates (default "
			    "0.5)" },
	{ "llm-duration-s", "LLM service lifetime, s (default 600)" },
	{ "llm-slo-ms", "LLM TTFT SLO mix in ms (default 1000:1)" },
	{ "llm-prompt", "prompt lengths (default lognormal:761:0.985)" },
	{ "llm-output", "output lengths (default lognormal:151:0.859)" },
	{ NULL, NULL }
};

static int mix_parse(struct gen_mix *m, const char *key, const char *s,
		     struct sim_err *err)
{
	const char *p = s;

	memset(m, 0, sizeof *m);
	if (strlen(s) >= sizeof m->text)
		return sim_err_set(err, SIM_EINVAL, "%s: longer than %zu "
				   "characters", key, sizeof m->text - 1);
	strcpy(m->text, s);
	while (*p) {
		size_t len = strcspn(p, ",");
		char item[64], *colon;
		double w = 1;

		if (m->n == GEN_MIX_MAX)
			return sim_err_set(err, SIM_EINVAL, "%s: more than %d "
					   "items", key, GEN_MIX_MAX);
		if (len == 0 || len >= sizeof item - 16)
			return sim_err_set(err, SIM_EINVAL, "%s: expected "
					   "'value:weight,...', got '%s'",
					   key, s);
		memcpy(item, p, len);
		item[len] = '\0';
		colon = strchr(item, ':');
		if (colon != NULL) {
			*colon = '\0';
			/* bounded, so that the sum of up to GEN_MIX_MAX
			** weights stays finite */
			if (sim_num_double(colon + 1, NULL, DBL_MIN, 1e9, &w,
					   NULL) != 0)
				return sim_err_set(err, SIM_EINVAL, "%s: expected "
						   "a weight in (0, 1e9] after "
						   "'%s:', got '%s'", key, item,
						   colon + 1);
		}
		if (item[0] == '\0' || strlen(item) >= sizeof m->item[0])
			return sim_err_set(err, SIM_EINVAL, "%s: empty or long "
					   "value in '%s'", key, s);
		strcpy(m->item[m->n], item);
		m->weight[m->n] = w;
		m->n++;
		p += len;
		if (*p == ',')
			p++;
	}
	if (m->n == 0)
		return sim_err_set(err, SIM_EINVAL, "%s: empty mix", key);
	return 0;
}

/* Every item of a numeric mix must be a number in [lo, hi]. */
static int mix_numeric(const struct gen_mix *m, const char *key, double lo,
		       double hi, int integer, struct sim_err *err)
{
	int i;

	for (i = 0; i < m->n; i++) {
		double v;
		if (sim_num_double(m->item[i], NULL, lo, hi, &v, NULL) != 0 ||
		    (integer && v != floor(v)))
			return sim_err_set(err, SIM_EINVAL, "%s: expected %s in "
					   "[%g, %g], got '%s'", key,
					   integer ? "integers" : "numbers",
					   lo, hi, m->item[i]);
	}
	return 0;
}

void gen_defaults(struct gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->jobs = 100;
	o->rate_per_s = 0.01;
	o->burst_cv = 3;
	o->infer_frac = 0.3;
	mix_parse(&o->models, "models", "resnet50:3,resnet152:1,vgg16:1,"
		  "inception3:1,mobilenetv2:1,bert-base:2,gpt2:1", NULL);
	mix_parse(&o->train_batch, "train-batch", "32:1,64:2,128:1", NULL);
	mix_parse(&o->infer_batch, "infer-batch", "8:1,16:1,32:1", NULL);
	mix_parse(&o->gpus, "gpus", "1:6,2:2,4:1,8:1", NULL);
	mix_parse(&o->share, "share", "1:1", NULL);
	mix_parse(&o->opt, "optimizers", "momentum:2,adam:1,sgd:1", NULL);
	mix_parse(&o->slo_ms, "slo-ms", "50:1,100:2,200:1", NULL);
	o->mixed_frac = 0.5;
	o->dur_median_s = 3600;
	o->dur_sigma = 1.0;
	o->infer_rate_median = 50;
	o->infer_rate_sigma = 0.5;
	o->infer_duration_s = 3600;
	o->batch_timeout_ms = 2;
	/* LLM services: none unless llm-frac > 0; the lengths are the
	** lognormal fits (MLE of the log) of the Azure LLM 2023 conversation
	** trace, as the world's LLM defaults (sim/world/world_llm_set.c) */
	mix_parse(&o->llm_models, "llm-models", "llama-3-8b:1", NULL);
	mix_parse(&o->llm_slo_ms, "llm-slo-ms", "1000:1", NULL);
	mix_parse(&o->llm_replicas, "llm-replicas", "1:1", NULL);
	o->llm_rate_median = 2;
	o->llm_rate_sigma = 0.5;
	o->llm_duration_s = 600;
	trace_len_parse("lognormal:761:0.985", &o->llm_prompt, NULL);
	trace_len_parse("lognormal:151:0.859", &o->llm_output, NULL);
}

static int num(const char *key, const char *v, double lo, double hi,
	       double *out, struct sim_err *err)
{
	double x;

	if (sim_num_double(v, NULL, lo, hi, &x, NULL) != 0)
		return sim_err_set(err, SIM_EINVAL, "%s: expected a number in "
				   "[%g, %g], got '%s'", key, lo, hi, v);
	*out = x;
	return 0;
}

int gen_set(struct gen_opts *o, const char *key, const char *v,
	    struct sim_err *err)
{
	double x = 0;
	int rc;

	if (strcmp(key, "seed") == 0) {
		uint64_t s;
		if (sim_num_u64(v, NULL, 0, UINT64_MAX, &s, NULL) != 0)
			return sim_err_set(err, SIM_EINVAL, "seed: expected an "
					   "unsigned integer, got '%s'", v);
		o->seed = s;
		return 0;
	}
	if (strcmp(key, "jobs") == 0) {
		rc = num(key, v, 1, 1e7, &x, err);
		if (rc == 0 && x != floor(x))
			rc = sim_err_set(err, SIM_EINVAL, "jobs: expected an "
					 "integer, got '%s'", v);
		if (rc == 0)
			o->jobs = (int)x;
		return rc;
	}
	if (strcmp(key, "arrival") == 0 || strcmp(key, "infer-arrival") == 0) {
		int is_job = key[0] == 'a';
		const char *alt = is_job ? "bursty" : "rates";
		if (strcasecmp(v, "poisson") != 0 && strcasecmp(v, alt) != 0)
			return sim_err_set(err, SIM_EINVAL, "%s: expected "
					   "poisson or %s, got '%s'", key, alt,
					   v);
		if (is_job)
			o->bursty = strcasecmp(v, "bursty") == 0;
		else
			o->infer_rates = strcasecmp(v, "rates") == 0;
		return 0;
	}
#define NUM(name, field, lo, hi)                                        \
	if (strcmp(key, name) == 0)                                     \
		return num(key, v, lo, hi, &o->field, err);
	NUM("rate", rate_per_s, 1e-9, 1e9)
	NUM("burst-cv", burst_cv, 1, 100)
	NUM("infer-frac", infer_frac, 0, 1)
	NUM("mixed-frac", mixed_frac, 0, 1)
	NUM("dur-median-s", dur_median_s, 1e-3, 1e9)
	NUM("dur-sigma", dur_sigma, 0, 10)
	NUM("infer-rate-median", infer_rate_median, 1e-6, 1e7)
	NUM("infer-rate-sigma", infer_rate_sigma, 0, 10)
	NUM("infer-duration-s", infer_duration_s, 0, 1e9)
	NUM("batch-timeout-ms", batch_timeout_ms, 0, 1e6)
	NUM("llm-frac", llm_frac, 0, 1)
	NUM("llm-rate-median", llm_rate_median, 1e-6, 1e5)
	NUM("llm-rate-sigma", llm_rate_sigma, 0, 10)
	NUM("llm-duration-s", llm_duration_s, 1, 1e7)
#undef NUM
	if (strcmp(key, "llm-prompt") == 0 || strcmp(key, "llm-output") == 0) {
		struct sim_err e = { 0, "" };
		rc = trace_len_parse(v, key[4] == 'p' ? &o->llm_prompt :
				     &o->llm_output, &e);
		return rc ? sim_err_set(err, SIM_EINVAL, "%s: %s", key, e.msg) :
			    0;
	}
#define MIX(name, field, lo, hi, integer)                               \
	if (strcmp(key, name) == 0) {                                   \
		rc = mix_parse(&o->field, key, v, err);                 \
		return rc ? rc : mix_numeric(&o->field, key, lo, hi,    \
					     integer, err);             \
	}
	MIX("train-batch", train_batch, 1, 1 << 20, 1)
	MIX("infer-batch", infer_batch, 1, 1 << 20, 1)
	MIX("gpus", gpus, 1, 1 << 20, 1)
	MIX("share", share, 1e-6, 1, 0)
	MIX("slo-ms", slo_ms, 1e-6, 1e9, 0)
	MIX("llm-slo-ms", llm_slo_ms, 1e-6, 1e9, 0)
	MIX("llm-replicas", llm_replicas, 1, 4096, 1)
#undef MIX
	if (strcmp(key, "llm-models") == 0) {
		int i;
		rc = mix_parse(&o->llm_models, key, v, err);
		for (i = 0; rc == 0 && i < o->llm_models.n; i++)
			if (llm_arch_find(o->llm_models.item[i]) == NULL) {
				char names[512];
				llm_arch_names(names, sizeof names);
				rc = sim_err_set(err, SIM_EINVAL, "llm-models: "
						 "unknown LLM '%s' (known: %s)",
						 o->llm_models.item[i], names);
			}
		return rc;
	}
	if (strcmp(key, "models") == 0 || strcmp(key, "optimizers") == 0) {
		struct gen_mix *m = key[0] == 'm' ? &o->models : &o->opt;
		int i;
		rc = mix_parse(m, key, v, err);
		for (i = 0; rc == 0 && i < m->n; i++) {
			enum wl_optimizer opt;
			if (m == &o->models && zoo_find(m->item[i]) == NULL) {
				char names[512];
				zoo_names(names, sizeof names);
				rc = sim_err_set(err, SIM_EINVAL, "models: "
						 "unknown model '%s' (known: "
						 "%s)", m->item[i], names);
			} else if (m == &o->opt &&
				   wl_optimizer_parse(m->item[i], &opt) != 0)
				rc = sim_err_set(err, SIM_EINVAL, "optimizers: "
						 "expected sgd, momentum or "
						 "adam, got '%s'", m->item[i]);
		}
		return rc;
	}
	return sim_err_set(err, SIM_ENOENT, "unknown generator option '%s'",
			   key);
}

static const char *mix_draw(const struct gen_mix *m, struct sim_rng *r)
{
	double total = 0, u;
	int i;

	for (i = 0; i < m->n; i++)
		total += m->weight[i];
	u = sim_rng_uniform(r) * total;
	for (i = 0; i < m->n - 1; i++) {
		if (u < m->weight[i])
			return m->item[i];
		u -= m->weight[i];
	}
	return m->item[m->n - 1];
}

enum { S_ARR, S_KIND, S_MODEL, S_SIZE, S_DUR, S_INFER, S_LLM, S_N };
static const char *const stream_names[S_N] = {
	"gen.arrival", "gen.kind", "gen.model", "gen.size", "gen.duration",
	"gen.infer", "gen.llm"
};

static void write_options(FILE *out, const struct gen_opts *o)
{
	fprintf(out, "# generated by colosim gen --seed %llu --jobs %d "
		"--rate %g --arrival %s", (unsigned long long)o->seed, o->jobs,
		o->rate_per_s, o->bursty ? "bursty" : "poisson");
	if (o->bursty)
		fprintf(out, " --burst-cv %g", o->burst_cv);
	fprintf(out, " --infer-frac %g\n#   --models %s --train-batch %s "
		"--infer-batch %s\n#   --gpus %s --share %s --optimizers %s "
		"--mixed-frac %g\n#   --dur-median-s %g --dur-sigma %g "
		"--infer-rate-median %g --infer-rate-sigma %g\n"
		"#   --infer-arrival %s --infer-duration-s %g --slo-ms %s "
		"--batch-timeout-ms %g\n",
		o->infer_frac, o->models.text, o->train_batch.text,
		o->infer_batch.text, o->gpus.text, o->share.text, o->opt.text,
		o->mixed_frac, o->dur_median_s, o->dur_sigma,
		o->infer_rate_median, o->infer_rate_sigma,
		o->infer_rates ? "rates" : "poisson", o->infer_duration_s,
		o->slo_ms.text, o->batch_timeout_ms);
	if (o->llm_frac > 0)
		fprintf(out, "#   --llm-frac %g --llm-models %s --llm-replicas "
			"%s --llm-rate-median %g\n#   --llm-rate-sigma %g "
			"--llm-duration-s %g --llm-slo-ms %s\n#   --llm-prompt "
			"%s --llm-output %s\n", o->llm_frac, o->llm_models.text,
			o->llm_replicas.text, o->llm_rate_median,
			o->llm_rate_sigma, o->llm_duration_s,
			o->llm_slo_ms.text, o->llm_prompt.text,
			o->llm_output.text);
}

/* The request file of LLM service i next to the trace: its path into
** path, its name (what arrival_arg holds) into base. */
static int llm_paths(const struct gen_opts *o, int i, char *path, size_t n,
		     char *base, size_t nb, struct sim_err *err)
{
	const char *p = o->out_path, *slash = strrchr(p, '/');
	size_t len = strlen(p);
	int w;

	if (len > 4 && strcmp(p + len - 4, ".csv") == 0)
		len -= 4;
	w = snprintf(path, n, "%.*s.llm-%04d.requests", (int)len, p, i);
	if (w < 0 || (size_t)w >= n)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", p);
	slash = strrchr(path, '/');
	p = slash != NULL ? slash + 1 : path;
	if (strlen(p) >= nb)
		return sim_err_set(err, SIM_ERANGE, "%s: name too long", path);
	memcpy(base, p, strlen(p) + 1);
	return 0;
}

/* Writes LLM service i's request file: Poisson arrivals at rate from
** t0 for dur seconds, sizes drawn on the stream ("gen.llm.requests", i)
** (the same service's requests whatever else the options change), a
** request over the model's context window cut to it (prompt first). */
static int llm_requests(const struct gen_opts *o, int i, const char *path,
			double t0, double rate, int max_ctx,
			struct sim_err *err)
{
	struct sim_rng r;
	char tmp[700];
	FILE *f;
	double t = t0;
	int rc;

	if ((rc = sim_rng_init(&r, o->seed, "gen.llm.requests", (uint64_t)i,
			       err)) != 0)
		return rc;
	/* written under a temporary name, renamed once complete */
	if ((f = sim_out_open(path, tmp, sizeof tmp, err)) == NULL) {
		sim_rng_fini(&r);
		return err->code;
	}
	fprintf(f, "%s\n", TRACE_REQ_HEADER);
	for (;;) {
		int p, q;
		t += sim_rng_exp(&r, 1.0 / rate);
		if (t > t0 + o->llm_duration_s)
			break;
		p = trace_len_draw(&o->llm_prompt, &r);
		q = trace_len_draw(&o->llm_output, &r);
		if ((long)p + q > max_ctx) {  /* the context window: the
						 prompt's head is cut */
			if (q >= max_ctx)
				q = max_ctx - 1;
			p = max_ctx - q;
		}
		fprintf(f, "%.9f,%d,%d\n", t, p, q);
	}
	sim_rng_fini(&r);
	rc = ferror(f) ? sim_err_set(err, SIM_EIO, "%s: write failed", path) :
	     0;
	return sim_out_close(f, tmp, path, rc, err);
}

/*
** Writes row i.  A drawn value the trace format cannot hold (a duration
** past 2^62 ns, a request rate past TRACE_RATE_MAX or printing as 0 at
** three decimals: lognormal tails with a large sigma) is an error naming
** the option to change, not a row that the reader would refuse.
*/
static int write_row(FILE *out, const struct gen_opts *o, int i,
		     sim_time submit_ns, struct sim_rng *s,
		     struct sim_err *err)
{
	/* the LLM stream is drawn only when LLM services are asked for, so
	** the other rows are the same bytes with or without them */
	int llm = o->llm_frac > 0 && sim_rng_uniform(&s[S_LLM]) < o->llm_frac;
	int infer = sim_rng_uniform(&s[S_KIND]) < o->infer_frac;
	const char *model = mix_draw(&o->models, &s[S_MODEL]);
	/* the size stream takes the same five draws for every row */
	const char *tb = mix_draw(&o->train_batch, &s[S_SIZE]);
	const char *ib = mix_draw(&o->infer_batch, &s[S_SIZE]);
	const char *gpus = mix_draw(&o->gpus, &s[S_SIZE]);
	const char *share = mix_draw(&o->share, &s[S_SIZE]);
	double u_prec = sim_rng_uniform(&s[S_SIZE]);
	const char *opt = mix_draw(&o->opt, &s[S_SIZE]);
	const char *slo = mix_draw(&o->slo_ms, &s[S_SIZE]);
	double dur = gsl_ran_lognormal(s[S_DUR].r, log(o->dur_median_s),
				       o->dur_sigma);
	double rate = gsl_ran_lognormal(s[S_INFER].r,
					log(o->infer_rate_median),
					o->infer_rate_sigma);
	double t_s = sim_time_to_s(submit_ns), lo, hi;

	if (llm) {
		const char *lm = mix_draw(&o->llm_models, &s[S_LLM]);
		const char *lslo = mix_draw(&o->llm_slo_ms, &s[S_LLM]);
		const char *reps = mix_draw(&o->llm_replicas, &s[S_LLM]);
		double lrate = gsl_ran_lognormal(s[S_LLM].r,
						 log(o->llm_rate_median),
						 o->llm_rate_sigma);
		char path[600], base[300];
		int rc;
		if (!(lrate >= 1e-6 && lrate <= 1e5))
			return sim_err_set(err, SIM_ERANGE, "LLM service %d: a "
					   "drawn request rate of %.3g/s is "
					   "outside [1e-06, 1e+05] (change "
					   "--llm-rate-median or "
					   "--llm-rate-sigma)", i, lrate);
		if ((rc = llm_paths(o, i, path, sizeof path, base,
				    sizeof base, err)) != 0 ||
		    (rc = llm_requests(o, i, path, t_s, lrate,
				       llm_arch_find(lm)->max_ctx, err)) != 0)
			return rc;
		fprintf(out, "llm-%04d,llm,%.3f,%s,256,,%.1f,,,,%s,,,,%s,file,,"
			"%s,\n", i, t_s, lm, o->llm_duration_s, reps, lslo,
			base);
		return 0;
	}
	if (!infer) {
		if (!(dur <= SIM_NUM_TIME_MAX_S))
			return sim_err_set(err, SIM_ERANGE, "job %d: a drawn "
					   "duration of %.3g s is past the "
					   "trace limit of %.10g s (lower "
					   "--dur-median-s or --dur-sigma)", i,
					   dur, SIM_NUM_TIME_MAX_S);
		fprintf(out, "train-%04d,train,%.3f,%s,%s,,%.1f,,%s,%s,%s,%s,"
			",,,,,,\n", i, t_s, model, tb, dur < 1 ? 1.0 : dur, opt,
			u_prec < o->mixed_frac ? "mixed" : "fp32", gpus, share);
		return 0;
	}
	/* printed with 3 decimals, the rates shape at 0.5x..1.75x */
	lo = o->infer_rates ? 0.002 : 0.001;
	hi = o->infer_rates ? TRACE_RATE_MAX / 1.75 : TRACE_RATE_MAX;
	if (!(rate >= lo && rate <= hi))
		return sim_err_set(err, SIM_ERANGE, "service %d: a drawn "
				   "request rate of %.3g/s is outside [%g, "
				   "%g] (the trace limit; change "
				   "--infer-rate-median or --infer-rate-sigma)",
				   i, rate, lo, hi);
	fprintf(out, "infer-%04d,infer,%.3f,%s,%s,,", i, t_s, model, ib);
	if (o->infer_duration_s > 0)
		fprintf(out, "%.1f", o->infer_duration_s);
	fprintf(out, ",,,,%s,%s,,,%s,", gpus, share, slo);
	if (o->infer_rates && o->infer_duration_s > 0) {
		/* a synthetic daily shape over the lifetime: low, peak,
		** middle, low (quarters), mean = rate */
		double q = o->infer_duration_s / 4;
		fprintf(out, "rates,,\"%.3f@0;%.3f@%.1f;%.3f@%.1f;%.3f@%.1f\",",
			0.5 * rate, 1.75 * rate, q, 1.25 * rate, 2 * q,
			0.5 * rate, 3 * q);
	} else {
		fprintf(out, "poisson,%.3f,,", rate);
	}
	fprintf(out, "%g\n", o->batch_timeout_ms);
	return 0;
}

int gen_write(FILE *out, const struct gen_opts *o, struct sim_err *err)
{
	struct sim_rng s[S_N];
	sim_time t = 0;
	int i, k, rc = 0;

	for (i = 0; i < o->models.n; i++)
		if (zoo_find(o->models.item[i]) == NULL)
			return sim_err_set(err, SIM_EINVAL, "models: unknown "
					   "model '%s'", o->models.item[i]);
	if (o->jobs < 1 || !(o->rate_per_s > 0))
		return sim_err_set(err, SIM_EINVAL, "jobs and rate must be > 0");
	if (o->llm_frac > 0 && o->out_path == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm-frac: LLM services "
				   "write request files next to the trace: "
				   "give -o FILE");
	memset(s, 0, sizeof s);
	for (k = 0; k < S_N; k++) {
		rc = sim_rng_init(&s[k], o->seed, stream_names[k], 0, err);
		if (rc < 0)
			goto out;
	}
	fprintf(out, "%s\n", TRACE_MAGIC);
	for (k = 0; k < TRACE_NCOLS; k++)
		fprintf(out, "%s%s", k ? "," : "", trace_columns[k]);
	fputc('\n', out);
	write_options(out, o);
	for (i = 0; i < o->jobs; i++) {
		double gap_s;
		if (o->bursty) {
			/* gamma gaps: mean 1/rate, CV burst_cv */
			double shape = 1.0 / (o->burst_cv * o->burst_cv);
			gap_s = gsl_ran_gamma(s[S_ARR].r, shape,
					      1.0 / (o->rate_per_s * shape));
		} else {
			gap_s = sim_rng_exp(&s[S_ARR], 1.0 / o->rate_per_s);
		}
		/* the first job arrives after one gap, like the rest */
		t = sim_time_add_sat(t, sim_time_from_ms(
			floor(gap_s * 1000.0)));   /* millisecond grid */
		if (t > SIM_NUM_TIME_MAX_NS) {
			rc = sim_err_set(err, SIM_ERANGE, "job %d: submit "
					 "times pass the trace limit of %.10g "
					 "s (raise --rate or lower --jobs)", i,
					 SIM_NUM_TIME_MAX_S);
			goto out;
		}
		if ((rc = write_row(out, o, i, t, s, err)) != 0)
			goto out;
	}
	if (ferror(out) || fflush(out) != 0)
		rc = sim_err_set(err, SIM_EIO, "write error");
out:
	for (k = 0; k < S_N; k++)
		sim_rng_fini(&s[k]);
	return rc;
}
