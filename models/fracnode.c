/*
** fracnode.c: fractional-GPU nodes with CPU and memory (see fracnode.h).
**
** All quantities are integers (milli-CPU, MiB, milli-GPU), so feasibility
** and allocation are exact; only the policies' scores use floating point.
*/
#include <stdlib.h>
#include <string.h>

#include "models/fracnode.h"

void frac_cluster_init(struct frac_cluster *c)
{
	memset(c, 0, sizeof(*c));
}

void frac_cluster_fini(struct frac_cluster *c)
{
	if (c == NULL)
		return;
	free(c->nodes);
	memset(c, 0, sizeof(*c));
}

int frac_cluster_model_id(const struct frac_cluster *c, const char *name)
{
	int i;

	if (name == NULL || name[0] == '\0')
		return -1;
	for (i = 0; i < c->nmodels; i++)
		if (strcmp(c->model_names[i], name) == 0)
			return i;
	return -1;
}

int frac_cluster_add_node(struct frac_cluster *c, int64_t cpu_milli,
			  int64_t mem_mib, int ngpus, const char *model,
			  int64_t tiebreak_rank, struct sim_err *err)
{
	struct frac_node *n;
	int m = -1, i;

	if (cpu_milli < 0 || mem_mib < 0 || ngpus < 0 || ngpus > FRAC_MAX_GPUS)
		return sim_err_set(err, SIM_ERANGE, "node: cpu %lld, memory %lld,"
				   " %d GPUs: out of range (0..%d GPUs)",
				   (long long)cpu_milli, (long long)mem_mib,
				   ngpus, FRAC_MAX_GPUS);
	if (model != NULL && model[0] != '\0') {
		if (strlen(model) >= FRAC_MODEL_NAME_MAX)
			return sim_err_set(err, SIM_ERANGE, "GPU model name '%.40s'"
					   " longer than %d bytes", model,
					   FRAC_MODEL_NAME_MAX - 1);
		m = frac_cluster_model_id(c, model);
		if (m < 0) {
			if (c->nmodels == FRAC_MAX_MODELS)
				return sim_err_set(err, SIM_ENOSPC, "more than %d"
						   " GPU models", FRAC_MAX_MODELS);
			m = c->nmodels++;
			strcpy(c->model_names[m], model);
		}
	}
	if (c->nnodes == c->capnodes) {
		size_t cap = c->capnodes ? 2 * c->capnodes : 64;
		void *p = realloc(c->nodes, cap * sizeof(*c->nodes));

		if (p == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		c->nodes = p;
		c->capnodes = cap;
	}
	n = &c->nodes[c->nnodes];
	memset(n, 0, sizeof(*n));
	n->cpu_milli = n->cpu_free_milli = cpu_milli;
	n->mem_mib = n->mem_free_mib = mem_mib;
	n->ngpus = ngpus;
	n->model = m;
	for (i = 0; i < ngpus; i++)
		n->gpu_free_milli[i] = FRAC_MILLI_PER_GPU;
	n->tiebreak_rank = tiebreak_rank;
	c->gpus_total += ngpus;
	return (int)c->nnodes++;
}

int frac_cluster_copy(struct frac_cluster *dst, const struct frac_cluster *src)
{
	*dst = *src;
	dst->nodes = NULL;
	if (src->nnodes > 0) {
		dst->nodes = malloc(src->nnodes * sizeof(*dst->nodes));
		if (dst->nodes == NULL) {
			frac_cluster_init(dst);
			return SIM_ENOMEM;
		}
		memcpy(dst->nodes, src->nodes, src->nnodes * sizeof(*dst->nodes));
	}
	dst->capnodes = src->nnodes;
	return 0;
}

/* Same rule as the FGD simulator: empty names between '|' are ignored; a
** spec that names no model allows every node, GPU-less ones included. */
void frac_pod_resolve(const struct frac_cluster *c, struct frac_pod *p)
{
	const char *s = p->gpu_spec, *e;
	char name[FRAC_MODEL_NAME_MAX];
	int named = 0, m;
	size_t len;

	p->model_mask = 0;
	while (s != NULL && *s != '\0') {
		e = strchr(s, '|');
		len = e ? (size_t)(e - s) : strlen(s);
		if (len > 0) {
			named++;
			if (len < sizeof(name)) {
				memcpy(name, s, len);
				name[len] = '\0';
				m = frac_cluster_model_id(c, name);
				if (m >= 0)
					p->model_mask |= UINT64_C(1) << m;
			}
		}
		s = e ? e + 1 : NULL;
	}
	p->any_model = named == 0;
}

int frac_model_ok(const struct frac_node *n, const struct frac_pod *p)
{
	if (p->any_model)
		return 1;
	return n->model >= 0 && (p->model_mask >> n->model) & 1;
}

int64_t frac_node_gpu_free(const struct frac_node *n)
{
	int64_t s = 0;
	int i;

	for (i = 0; i < n->ngpus; i++)
		s += n->gpu_free_milli[i];
	return s;
}

int frac_node_fits(const struct frac_node *n, const struct frac_pod *p)
{
	int i, have = 0;

	if (n->cpu_free_milli < p->cpu_milli || n->mem_free_mib < p->mem_mib)
		return 0;
	if (!frac_model_ok(n, p))
		return 0;
	if (p->num_gpu <= 0)
		return 1;
	for (i = 0; i < n->ngpus; i++)
		if (n->gpu_free_milli[i] >= p->gpu_milli && ++have >= p->num_gpu)
			return 1;
	return 0;
}

int frac_pick_gpus_default(const struct frac_node *n, const struct frac_pod *p,
			   struct frac_place *out)
{
	int i, best = -1;

	out->ngpu = 0;
	if (p->num_gpu <= 0)
		return 0;
	if (p->num_gpu == 1 && p->gpu_milli < FRAC_MILLI_PER_GPU) {
		for (i = 0; i < n->ngpus; i++)
			if (n->gpu_free_milli[i] >= p->gpu_milli &&
			    (best < 0 || n->gpu_free_milli[i] <
			     n->gpu_free_milli[best]))
				best = i;
		if (best < 0)
			return SIM_ENOSPC;
		out->gpu[out->ngpu++] = best;
		return 0;
	}
	for (i = 0; i < n->ngpus && out->ngpu < p->num_gpu; i++)
		if (n->gpu_free_milli[i] >= p->gpu_milli)
			out->gpu[out->ngpu++] = i;
	return out->ngpu == p->num_gpu ? 0 : SIM_ENOSPC;
}

int frac_cluster_alloc(struct frac_cluster *c, const struct frac_pod *p,
		       const struct frac_place *pl, struct sim_err *err)
{
	struct frac_node *n;
	int i, j;

	if (pl->node < 0 || (size_t)pl->node >= c->nnodes ||
	    pl->ngpu != (p->num_gpu > 0 ? p->num_gpu : 0))
		return sim_err_set(err, SIM_EINVAL, "placement: node %d with %d"
				   " GPUs for a %d-GPU pod", pl->node, pl->ngpu,
				   p->num_gpu);
	n = &c->nodes[pl->node];
	if (!frac_node_fits(n, p))
		return sim_err_set(err, SIM_ENOSPC, "placement: pod does not fit"
				   " node %d", pl->node);
	for (i = 0; i < pl->ngpu; i++) {
		if (pl->gpu[i] < 0 || pl->gpu[i] >= n->ngpus ||
		    n->gpu_free_milli[pl->gpu[i]] < p->gpu_milli)
			return sim_err_set(err, SIM_ENOSPC, "placement: GPU %d of"
					   " node %d cannot take %d milli",
					   pl->gpu[i], pl->node, p->gpu_milli);
		for (j = 0; j < i; j++)
			if (pl->gpu[j] == pl->gpu[i])
				return sim_err_set(err, SIM_EINVAL, "placement:"
						   " GPU %d listed twice",
						   pl->gpu[i]);
	}
	n->cpu_free_milli -= p->cpu_milli;
	n->mem_free_mib -= p->mem_mib;
	for (i = 0; i < pl->ngpu; i++)
		n->gpu_free_milli[pl->gpu[i]] -= p->gpu_milli;
	c->gpu_used_milli += (int64_t)pl->ngpu * p->gpu_milli;
	n->version++;
	return 0;
}
