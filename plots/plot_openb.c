/*
** plot_openb.c: the openb figure (see plot.h, plot_openb): its data file,
** then plots/openb.gp through plot_gnuplot.
*/
#include "plots/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/file.h"

int plot_openb(const char *dir, const char *scripts_dir, const char *gnuplot,
	       const char *const *names, const double *const *curves,
	       int ncurves, int kmax, struct sim_err *err)
{
	static const char *const vars[] = { "datafile", "outfile", "ncurves" };
	char dat[4096], png[4096], script[4096], nbuf[16], tmp[4200];
	char tdat[4200], ldat[4300], lpng[4300], lscript[4300];
	const char *values[3];
	const char *sdir = scripts_dir ? scripts_dir : plot_find_scripts();
	FILE *fp;
	int i, k, rc;

	if (sdir == NULL)
		return sim_err_set(err, SIM_ENOENT, "cannot find the gnuplot "
				   "scripts (plots/openb.gp): run from the "
				   "checkout or set COLOSIM_PLOTS");
	if ((size_t)snprintf(dat, sizeof dat, "%s/openb-alloc.dat", dir) >=
	    sizeof dat ||
	    (size_t)snprintf(png, sizeof png, "%s/openb-alloc.png", dir) >=
	    sizeof png ||
	    (size_t)snprintf(script, sizeof script, "%s/openb.gp", sdir) >=
	    sizeof script || sim_out_tmpname(png, tmp, sizeof tmp) != 0)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", dir);
	/* gnuplot reads "<cmd" and "|cmd" as pipes: every path it sees is
	** literal (sim_path_literal) */
	if ((rc = sim_path_literal(dat, ldat, sizeof ldat, "--out", err)) ||
	    (rc = sim_path_literal(tmp, lpng, sizeof lpng, "--out", err)) ||
	    (rc = sim_path_literal(script, lscript, sizeof lscript,
				   "scripts", err)))
		return rc;
	if ((fp = sim_out_open(dat, tdat, sizeof tdat, err)) == NULL)
		return err->code;
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
	if ((rc = sim_out_close(fp, tdat, dat, 0, err)) != 0)
		return rc;
	snprintf(nbuf, sizeof nbuf, "%d", ncurves);
	values[0] = ldat;
	values[1] = lpng;
	values[2] = nbuf;
	rc = plot_gnuplot(gnuplot, lscript, vars, values, 3, tmp, err);
	if (rc != 0) {
		sim_out_abort(tmp);
		return rc;
	}
	return sim_out_commit(tmp, png, err);
}
