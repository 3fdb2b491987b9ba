/*
** cluster.c: cluster specs (see cluster.h).
*/
#include "models/cluster.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 100000
#define MAX_GPUS_PER_NODE 64

static int parse_int(const char *s, const char *end, long *out)
{
	char *e;
	long v;

	if (s == end || !(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	v = strtol(s, &e, 10);
	if (e != end || errno != 0)
		return -1;
	*out = v;
	return 0;
}

int cluster_parse(struct cluster_spec *out, const char *spec,
		  const struct dev_catalog *cat, const char *what,
		  struct sim_err *err)
{
	const char *p = spec;

	memset(out, 0, sizeof *out);
	if (spec == NULL || *spec == '\0')
		return sim_err_set(err, SIM_EPARSE, "%s: empty cluster spec "
				   "(expected NODESxGPUS:DEVICE[,...], e.g. "
				   "4x8:a100-80gb)", what);
	while (*p) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *x = memchr(p, 'x', (size_t)(end - p));
		const char *colon = memchr(p, ':', (size_t)(end - p));
		struct cluster_group *g;
		long nodes, gpus;
		char name[DEV_NAME_MAX];
		size_t len;

		if (x == NULL || colon == NULL || colon < x ||
		    parse_int(p, x, &nodes) || parse_int(x + 1, colon, &gpus))
			return sim_err_set(err, SIM_EPARSE, "%s: cluster part "
					   "'%.*s': expected NODESxGPUS:DEVICE, "
					   "e.g. 4x8:a100-80gb", what,
					   (int)(end - p), p);
		if (nodes < 1 || nodes > MAX_NODES)
			return sim_err_set(err, SIM_ERANGE, "%s: cluster part "
					   "'%.*s': node count must be 1..%d",
					   what, (int)(end - p), p, MAX_NODES);
		if (gpus < 1 || gpus > MAX_GPUS_PER_NODE)
			return sim_err_set(err, SIM_ERANGE, "%s: cluster part "
					   "'%.*s': GPUs per node must be 1..%d",
					   what, (int)(end - p), p,
					   MAX_GPUS_PER_NODE);
		len = (size_t)(end - colon - 1);
		if (len == 0 || len >= sizeof name)
			return sim_err_set(err, SIM_EPARSE, "%s: cluster part "
					   "'%.*s': missing or overlong device",
					   what, (int)(end - p), p);
		memcpy(name, colon + 1, len);
		name[len] = '\0';
		if (out->ngroups == CLUSTER_GROUPS_MAX)
			return sim_err_set(err, SIM_ERANGE, "%s: more than %d "
					   "cluster parts", what,
					   CLUSTER_GROUPS_MAX);
		g = &out->groups[out->ngroups];
		g->dev = dev_catalog_find(cat, name);
		if (g->dev == NULL) {
			char known[1024];
			dev_catalog_names(cat, known, sizeof known);
			return sim_err_set(err, SIM_ENOENT, "%s: unknown device "
					   "'%s' (known: %s)", what, name, known);
		}
		g->nodes = (int)nodes;
		g->gpus_per_node = (int)gpus;
		if ((long)out->ngpus + nodes * gpus > MAX_NODES * 8L)
			return sim_err_set(err, SIM_ERANGE, "%s: more than %ld "
					   "GPUs", what, MAX_NODES * 8L);
		out->nnodes += (int)nodes;
		out->ngpus += (int)(nodes * gpus);
		out->ngroups++;
		p = comma ? comma + 1 : end;
		if (comma && *p == '\0')
			return sim_err_set(err, SIM_EPARSE, "%s: trailing comma "
					   "in cluster spec", what);
	}
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
