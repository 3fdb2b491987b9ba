/*
** plot_openb.c: the openb figure (see plot.h, plot_openb): its data file,
** then plots/openb.gp through plot_gnuplot.
*/
#include "plots/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int plot_openb(const char *dir, const char *scripts_dir, const char *gnuplot,
	       const char *const *names, const double *const *curves,
	       int ncurves, int kmax, struct sim_err *err)
{
	static const char *const vars[] = { "datafile", "outfile", "ncurves" };
	char dat[4096], png[4096], script[4096], nbuf[16];
	const char *values[3];
	const char *sdir = scripts_dir ? scripts_dir : plot_find_scripts();
	FILE *fp;
	int i, k;

	if (sdir == NULL)
		return sim_err_set(err, SIM_ENOENT, "cannot find the gnuplot "
				   "scripts (plots/openb.gp): run from the "
				   "checkout or set COLOSIM_PLOTS");
	if ((size_t)snprintf(dat, sizeof dat, "%s/openb-alloc.dat", dir) >=
	    sizeof dat ||
	    (size_t)snprintf(png, sizeof png, "%s/openb-alloc.png", dir) >=
	    sizeof png ||
	    (size_t)snprintf(script, sizeof script, "%s/openb.gp", sdir) >=
	    sizeof script)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", dir);
	if ((fp = fopen(dat, "w")) == NULL)
		return sim_err_set(err, SIM_EIO, "%s: %s", dat, strerror(errno));
	fprintf(fp, "k");
	for (i = 0; i < ncurves; i++)
		fprintf(fp, " %s", names[i]);
	fprintf(fp, "\n");
	for (k = 0; k <= kmax; k++) {
		fprintf(fp, "%d", k);
		for (i = 0; i < ncurves; i++)
			if (isnan(curves[i][k]))
				fprintf(fp, " NaN");
			else
				fprintf(fp, " %.4f", curves[i][k]);
		fprintf(fp, "\n");
	}
	if (ferror(fp) | fclose(fp))
		return sim_err_set(err, SIM_EIO, "%s: write error", dat);
	snprintf(nbuf, sizeof nbuf, "%d", ncurves);
	values[0] = dat;
	values[1] = png;
	values[2] = nbuf;
	return plot_gnuplot(gnuplot, script, vars, values, 3, png, err);
}
