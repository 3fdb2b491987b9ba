/*
** result.c: the in-memory result of one run (see result.h).
*/
#include "sim/world/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/err.h"

void run_result_init(struct run_result *r)
{
	memset(r, 0, sizeof *r);
}

void run_result_fini(struct run_result *r)
{
	free(r->metrics);
	free(r->jobs);
	free(r->series);
	free(r->lat);
	free(r->place);
	free(r->hists);
	free(r->points);
	memset(r, 0, sizeof *r);
}

/* Grows *arr (of elements of size sz) to hold one more; 0 or SIM_ENOMEM. */
static int reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * sz);
	if (p == NULL)
		return SIM_ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

int run_result_set(struct run_result *r, const char *name, double value)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0) {
			r->metrics[i].value = value;
			return 0;
		}
	if (strlen(name) >= sizeof r->metrics[0].name)
		return SIM_EINVAL;
	if (reserve((void **)&r->metrics, &r->capmetrics, r->nmetrics,
		    sizeof *r->metrics))
		return SIM_ENOMEM;
	strcpy(r->metrics[r->nmetrics].name, name);
	r->metrics[r->nmetrics++].value = value;
	return 0;
}

double run_result_get(const struct run_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0)
			return r->metrics[i].value;
	return NAN;
}

int run_result_reserve_jobs(struct run_result *r, size_t n)
{
	struct res_job *p;

	if (r->njobs + n <= r->capjobs)
		return 0;
	p = realloc(r->jobs, (r->njobs + n) * sizeof *p);
	if (p == NULL)
		return SIM_ENOMEM;
	r->jobs = p;
	r->capjobs = r->njobs + n;
	return 0;
}

int run_result_reserve_place(struct run_result *r, size_t n)
{
	struct res_place *p;

	if (r->nplace + n <= r->capplace)
		return 0;
	p = realloc(r->place, (r->nplace + n) * sizeof *p);
	if (p == NULL)
		return SIM_ENOMEM;
	r->place = p;
	r->capplace = r->nplace + n;
	return 0;
}

int run_result_add_job(struct run_result *r, const struct res_job *j)
{
	if (reserve((void **)&r->jobs, &r->capjobs, r->njobs, sizeof *j))
		return SIM_ENOMEM;
	r->jobs[r->njobs++] = *j;
	return 0;
}

int run_result_add_series(struct run_result *r, const struct res_series *s)
{
	if (reserve((void **)&r->series, &r->capseries, r->nseries, sizeof *s))
		return SIM_ENOMEM;
	r->series[r->nseries++] = *s;
	return 0;
}

int run_result_add_lat(struct run_result *r, const struct res_lat_bin *b)
{
	if (reserve((void **)&r->lat, &r->caplat, r->nlat, sizeof *b))
		return SIM_ENOMEM;
	r->lat[r->nlat++] = *b;
	return 0;
}

int run_result_add_place(struct run_result *r, const struct res_place *p)
{
	if (reserve((void **)&r->place, &r->capplace, r->nplace, sizeof *p))
		return SIM_ENOMEM;
	r->place[r->nplace++] = *p;
	return 0;
}

int run_result_add_hist(struct run_result *r, const struct res_hist_bin *b)
{
	if (reserve((void **)&r->hists, &r->caphists, r->nhists, sizeof *b))
		return SIM_ENOMEM;
	r->hists[r->nhists++] = *b;
	return 0;
}

int run_result_add_point(struct run_result *r, const struct res_point *p)
{
	if (reserve((void **)&r->points, &r->cappoints, r->npoints,
		    sizeof *p))
		return SIM_ENOMEM;
	r->points[r->npoints++] = *p;
	return 0;
}
