/*
** cluster.c: cluster specs (see cluster.h): the one parser of
** "NODESxGPUS:DEVICE[,...]" strings, for the command line, experiment
** configs and sweeps.  The syntax (cluster_parse_parts) needs no device
** catalog; cluster_parse then resolves each device against one.
*/
#include "models/cluster.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sim/num.h"

#define MAX_NODES 100000
#define MAX_GPUS_PER_NODE 64

/* Parses the count in [s, end) (digits only) into *out; 0 or -1. */
static int parse_count(const char *s, const char *end, long *out)
{
	char buf[24];
	int64_t v;

	if (end - s < 1 || end - s >= (long)sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	if (!isdigit((unsigned char)buf[0]) ||
	    sim_num_i64(buf, NULL, 0, INT64_MAX, &v, NULL) != 0)
		return -1;
	*out = (long)(v > MAX_NODES * 10L ? MAX_NODES * 10L : v);
	return 0;
}

/* 1 when the device name is letters, digits, '-', '_' and '.'. */
static int is_device_name(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && strchr("-_.", *s) == NULL)
			return 0;
	return 1;
}

/* The host resources after the device, ":cpus=N:mem_gb=X" in [s, end)
** (s at the first ':'), into g. */
static int parse_host(const char *s, const char *end, const char *what,
		      const char *part, struct cluster_part *g,
		      struct sim_err *err)
{
	while (s < end && *s == ':') {
		const char *next = memchr(s + 1, ':', (size_t)(end - s - 1));
		const char *stop = next ? next : end;
		char buf[48];
		double v;
		size_t n = (size_t)(stop - s - 1);

		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, s + 1, n);
		buf[n] = '\0';
		if (strncmp(buf, "cpus=", 5) == 0 &&
		    sim_num_double(buf + 5, NULL, 1, 1e6, &v, NULL) == 0 &&
		    v == (int)v)
			g->cpus_per_node = (int)v;
		else if (strncmp(buf, "mem_gb=", 7) == 0 &&
			 sim_num_double(buf + 7, NULL, 0, 1e9, &v, NULL) == 0 &&
			 v > 0)
			g->mem_gb_per_node = v;
		else
			return sim_err_set(err, SIM_EPARSE, "%s: cluster part "
					   "'%.*s': '%s': expected cpus=N "
					   "(1..1000000) or mem_gb=X (> 0) "
					   "after the device", what,
					   (int)(end - part), part, buf);
		s = stop;
	}
	return 0;
}

/* Parses one part [p, end) (blanks trimmed) into *g. */
static int parse_part(const char *p, const char *end, const char *what,
		      struct cluster_part *g, struct sim_err *err)
{
	const char *x, *colon, *opt;
	long nodes, gpus;
	size_t len;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	x = memchr(p, 'x', (size_t)(end - p));
	colon = memchr(p, ':', (size_t)(end - p));
	if (x == NULL || colon == NULL || colon < x ||
	    parse_count(p, x, &nodes) || parse_count(x + 1, colon, &gpus))
		return sim_err_set(err, SIM_EPARSE, "%s: cluster part '%.*s': "
				   "expected NODESxGPUS:DEVICE, e.g. "
				   "4x8:a100-80gb", what, (int)(end - p), p);
	if (nodes < 1 || nodes > MAX_NODES)
		return sim_err_set(err, SIM_ERANGE, "%s: cluster part '%.*s': "
				   "node count must be 1..%d", what,
				   (int)(end - p), p, MAX_NODES);
	if (gpus < 1 || gpus > MAX_GPUS_PER_NODE)
		return sim_err_set(err, SIM_ERANGE, "%s: cluster part '%.*s': "
				   "GPUs per node must be 1..%d", what,
				   (int)(end - p), p, MAX_GPUS_PER_NODE);
	opt = memchr(colon + 1, ':', (size_t)(end - colon - 1));
	len = (size_t)((opt ? opt : end) - colon - 1);
	if (len == 0 || len >= sizeof g->device)
		return sim_err_set(err, SIM_EPARSE, "%s: cluster part '%.*s': "
				   "missing or overlong device", what,
				   (int)(end - p), p);
	memcpy(g->device, colon + 1, len);
	g->device[len] = '\0';
	if (!is_device_name(g->device))
		return sim_err_set(err, SIM_EPARSE, "%s: cluster part '%.*s': "
				   "device '%s': expected letters, digits, "
				   "'-', '_', '.'", what, (int)(end - p), p,
				   g->device);
	g->nodes = (int)nodes;
	g->gpus_per_node = (int)gpus;
	g->cpus_per_node = 0;
	g->mem_gb_per_node = 0;
	return opt ? parse_host(opt, end, what, p, g, err) : 0;
}

int cluster_parse_parts(const char *spec, const char *what,
			struct cluster_part *parts, int *nparts,
			struct sim_err *err)
{
	const char *p = spec;
	long ngpus = 0;
	int rc;

	*nparts = 0;
	if (spec == NULL || spec[strspn(spec, " \t")] == '\0')
		return sim_err_set(err, SIM_EPARSE, "%s: empty cluster spec "
				   "(expected NODESxGPUS:DEVICE[,...], e.g. "
				   "4x8:a100-80gb)", what);
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if (*nparts == CLUSTER_GROUPS_MAX)
			return sim_err_set(err, SIM_ERANGE, "%s: more than %d "
					   "cluster parts", what,
					   CLUSTER_GROUPS_MAX);
		if ((rc = parse_part(p, end, what, &parts[*nparts], err)) != 0)
			return rc;
		ngpus += (long)parts[*nparts].nodes *
			 parts[*nparts].gpus_per_node;
		if (ngpus > MAX_NODES * 8L)
			return sim_err_set(err, SIM_ERANGE, "%s: more than %ld "
					   "GPUs", what, MAX_NODES * 8L);
		(*nparts)++;
		if (comma == NULL)
			return 0;
		p = comma + 1;
		if (p[strspn(p, " \t")] == '\0')
			return sim_err_set(err, SIM_EPARSE, "%s: trailing comma "
					   "in cluster spec", what);
	}
}

int cluster_parse(struct cluster_spec *out, const char *spec,
		  const struct dev_catalog *cat, const char *what,
		  struct sim_err *err)
{
	struct cluster_part parts[CLUSTER_GROUPS_MAX];
	int n, i, rc;

	memset(out, 0, sizeof *out);
	if ((rc = cluster_parse_parts(spec, what, parts, &n, err)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct cluster_group *g = &out->groups[i];

		g->dev = dev_catalog_find(cat, parts[i].device);
		if (g->dev == NULL) {
			char known[1024];
			dev_catalog_names(cat, known, sizeof known);
			memset(out, 0, sizeof *out);
			return sim_err_set(err, SIM_ENOENT, "%s: unknown device "
					   "'%s' (known: %s)", what,
					   parts[i].device, known);
		}
		g->nodes = parts[i].nodes;
		g->gpus_per_node = parts[i].gpus_per_node;
		g->cpus_per_node = parts[i].cpus_per_node;
		g->mem_gb_per_node = parts[i].mem_gb_per_node;
		out->nnodes += g->nodes;
		out->ngpus += g->nodes * g->gpus_per_node;
	}
	out->ngroups = n;
	return 0;
}

const struct dev_profile *cluster_gpu_dev(const struct cluster_spec *c, int g,
					  int *node)
{
	int i, base_gpu = 0, base_node = 0;

	for (i = 0; i < c->ngroups; i++) {
		int n = c->groups[i].nodes * c->groups[i].gpus_per_node;
		if (g < base_gpu + n) {
			if (node != NULL)
				*node = base_node +
					(g - base_gpu) / c->groups[i].gpus_per_node;
			return c->groups[i].dev;
		}
		base_gpu += n;
		base_node += c->groups[i].nodes;
	}
	return NULL;
}

int cluster_node_cpus(const struct cluster_spec *c, int n)
{
	int i, base = 0;

	for (i = 0; i < c->ngroups; i++) {
		const struct cluster_group *g = &c->groups[i];

		if (n >= base && n < base + g->nodes)
			return g->cpus_per_node > 0 ? g->cpus_per_node :
			       CLUSTER_CPUS_PER_GPU_DEFAULT * g->gpus_per_node;
		base += g->nodes;
	}
	return 0;
}
