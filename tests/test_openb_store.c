/*
** test_openb_store.c: `colosim openb --db` (experiments/openb_store.c):
** the runs stored in the results store carry the same allocation curve as
** the CSV, and the placed/failed counts of the replay; a second write with
** the same inputs replaces the runs, with other inputs it is refused.
**
** A hand-built cluster of two T4 nodes (2 + 1 GPUs) and six arrivals whose
** GPU demand reaches 4,400 milli (147% of 3,000): the 1,000-milli pods
** fill the cluster and the last ones fail, so the curve bends.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "experiments/openb.h"
#include "tests/util.h"

static const char *put(const char *name, const char *text)
{
	const char *p = test_write(name, NULL, text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/* The stored value of metric name of run key, NaN when absent. */
static double stored(sqlite3 *db, const char *key, const char *name)
{
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_prepare_v2(db, "SELECT m.value FROM metrics m JOIN runs r"
			       " ON r.id = m.run_id WHERE r.run_key = ?1 AND "
			       "m.name = ?2", -1, &st, NULL) != SQLITE_OK)
		return v;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_store_matches_csv(void)
{
	const char *names[2] = { "BestFit", "FGD" };
	const char *nodes, *arr, *tie;
	char csv[512], db[512], line[256];
	struct openb_data d;
	struct openb_run runs[2];
	struct openb_store_info info;
	struct sim_err err;
	double curves[2][OPENB_KMAX + 1], wall[2] = { 0.5, 0.25 };
	const double *cv[2] = { curves[0], curves[1] };
	sqlite3 *h;
	FILE *f;
	int i, rows = 0;

	nodes = put("ob-n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
		    "a,64000,262144,2,T4\nb,64000,262144,1,T4\n");
	arr = put("ob-a.csv", "seq,name,orig_name,cpu_milli,memory_mib,"
		  "num_gpu,gpu_milli,gpu_spec\n"
		  "0,p0,p0,1000,1024,1,500,\n"
		  "1,p1,p1,1000,1024,1,1000,\n"
		  "2,p2,p2,1000,1024,1,300,\n"
		  "3,p3,p3,1000,1024,1,1000,\n"
		  "4,p4,p4,1000,1024,1,1000,\n"
		  "5,p4-tuned-1,p4,1000,1024,1,600,\n");
	tie = put("ob-t.csv", "tiebreak_rank,sim_name,sn\n0,x,a\n1,y,b\n");
	openb_data_init(&d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(openb_load_nodes(&d, nodes, &err), 0);
	CU_ASSERT_EQUAL_FATAL(openb_load_arrivals(&d, arr, &err), 0);
	CU_ASSERT_EQUAL_FATAL(openb_load_tiebreak(&d, tie, &err), 0);
	memset(runs, 0, sizeof runs);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(openb_replay(&d, i ? OPENB_FGD :
						   OPENB_BESTFIT, 95.0,
						   test_tmpdir(),
						   "models/devices", &runs[i],
						   &err), 0);
		CU_ASSERT_EQUAL(runs[i].placed + runs[i].failed, 6);
		CU_ASSERT(runs[i].failed >= 1);   /* demand is 147% */
		CU_ASSERT_EQUAL_FATAL(openb_curve(&runs[i], OPENB_KMAX, 0,
						  curves[i]), 0);
	}
	snprintf(csv, sizeof csv, "%s/ob.csv", test_tmpdir());
	snprintf(db, sizeof db, "%s/ob.db", test_tmpdir());
	remove(db);
	CU_ASSERT_EQUAL_FATAL(openb_write_csv(csv, names, cv, 2, OPENB_KMAX,
					      &err), 0);
	info.experiment = "openb-test";
	info.nodes = nodes;
	info.arrivals = arr;
	info.tiebreak = tie;
	info.threshold_pct = 95.0;
	CU_ASSERT_EQUAL_FATAL(openb_store_runs(db, &info, names, runs, cv,
					       wall, 2, &err), 0);
	/* again, same inputs: the runs are replaced, not refused */
	CU_ASSERT_EQUAL(openb_store_runs(db, &info, names, runs, cv, wall, 2,
					 &err), 0);

	CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY,
					      NULL), SQLITE_OK);
	f = fopen(csv, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));   /* header */
	while (fgets(line, sizeof line, f) != NULL) {
		char pol[32], key[32], metric[32];
		int k, c;
		double v;
		CU_ASSERT_EQUAL_FATAL(sscanf(line, "%31[^,],%d,%lf", pol, &k,
					     &v), 3);
		for (c = 0; pol[c] != '\0'; c++)
			key[c] = (char)(pol[c] >= 'A' && pol[c] <= 'Z' ?
					pol[c] - 'A' + 'a' : pol[c]);
		key[c] = '\0';
		snprintf(metric, sizeof metric, "alloc_pct_k%03d", k);
		/* the CSV prints 4 decimals */
		CU_ASSERT_DOUBLE_EQUAL(stored(h, key, metric), v, 0.00005 +
				       1e-12);
		rows++;
	}
	fclose(f);
	{       /* every non-NaN point of both curves, and only those */
		int k, want = 0;
		for (i = 0; i < 2; i++)
			for (k = 0; k <= OPENB_KMAX; k++)
				want += !isnan(curves[i][k]);
		CU_ASSERT_EQUAL(rows, want);
		CU_ASSERT(rows >= 12);
	}
	for (i = 0; i < 2; i++) {
		const char *key = i ? "fgd" : "bestfit";
		CU_ASSERT_EQUAL(stored(h, key, "placed"),
				(double)runs[i].placed);
		CU_ASSERT_EQUAL(stored(h, key, "failed"),
				(double)runs[i].failed);
		CU_ASSERT_EQUAL(stored(h, key, "arrivals"), 6);
		CU_ASSERT_EQUAL(stored(h, key, "gpus_total"), 3);
		CU_ASSERT_EQUAL(stored(h, key, "wall_s"), wall[i]);
	}
	sqlite3_close(h);

	/* other inputs under the same name: refused */
	info.threshold_pct = 90.0;
	CU_ASSERT_EQUAL(openb_store_runs(db, &info, names, runs, cv, wall, 2,
					 &err), SIM_EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "openb-test"));
	for (i = 0; i < 2; i++)
		openb_run_fini(&runs[i]);
	openb_data_fini(&d);
}

TEST_REGISTER(openb_store)
{
	static const struct test_case cases[] = {
		{ "stored curve and counts equal the CSV and the replay",
		  test_store_matches_csv },
		{ NULL, NULL }
	};
	return test_add_suite("openb_store", cases);
}
