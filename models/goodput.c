/*
** goodput.c: the goodput model of elastic jobs (goodput.h; docs/MODEL.md,
** "Goodput of elastic jobs").
*/
#include "models/goodput.h"

#include <string.h>

double gp_efficiency(double phi, double m0, double m)
{
	if (!(phi > 0) || !(m > 0))
		return 1.0;
	return (phi + m0) / (phi + m);
}

double gp_time_ratio(int n0, int n, int batch, double phi, double iter0_ns,
		     double iter_ns)
{
	double b = batch > 0 ? batch : 1, e;

	if (n < 1 || n0 < 1 || !(iter0_ns > 0) || !(iter_ns > 0))
		return 1.0;
	e = gp_efficiency(phi, n0 * b, n * b);
	return (iter_ns / iter0_ns) * ((double)n0 / ((double)n * e));
}

/*
** Published noise scales: phi = M0 grad_var / grad_sqr from the Pollux
** artifact's profiles (petuum/adaptdl simulator/traces/APP/
** validation-M0.csv, commit de25dcc), at the row of mid-training (epoch
** floor(E / 2) of the E epochs simulator/applications.py runs it): ImageNet
** ResNet-50, M0 200, epoch 45 of 90: 200 x 20.1994 / 0.354474 = 11397;
** BERT (SQuAD fine-tuning), M0 12, epoch 1 of 2: 12 x 3.82576e13 /
** 4.08336e11 = 1124.
*/
static const struct {
	const char *name;
	double phi;
} gp_table[] = {
	{ "resnet50", 11397.0 },
	{ "bert-base", 1124.0 },
};

double gp_noise_scale(const char *name)
{
	size_t k;

	for (k = 0; name != NULL && k < sizeof gp_table / sizeof gp_table[0];
	     k++)
		if (strcmp(gp_table[k].name, name) == 0)
			return gp_table[k].phi;
	return GP_NOISE_DEFAULT;
}
