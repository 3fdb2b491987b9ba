/*
** test_plugin.c: policies built outside colosim (docs/POLICIES.md,
** "Plugins"): `colosim policy new` writes a copy of the template that
** builds as a shared object; --plugin and a config's `plugins` key load
** it into replay, list and run (forked workers included) and it computes
** what the template computes; the loader refuses a newer interface
** version, a built-in's name, the template's own name, a file without
** the entry symbol and a missing file, each with one line naming the
** file; `make install-policy-dev` installs what a plugin needs to build
** through pkg-config alone.  The conformance suite runs a plugin too
** (tests/test_conformance.c).
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policies/catalog.h"
#include "tests/util.h"
#include "tests/world_util.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (f == NULL)
		return NULL;
	buf = calloc(1, 1 << 16);
	n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_policy_new(void)
{
	char cmd[1024], err[1024], path[600];
	const char *so = test_build_plugin("myfifo");
	char *src, *mk;

	if (so == NULL)
		return;
	CU_ASSERT_EQUAL(access(so, R_OK), 0);
	snprintf(path, sizeof path, "%s/myfifo/myfifo.c", test_tmpdir());
	src = slurp(path);
	snprintf(path, sizeof path, "%s/myfifo/Makefile", test_tmpdir());
	mk = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
	/* The name is set everywhere; nothing is left of the template's. */
	CU_ASSERT_PTR_NOT_NULL(strstr(src, "#define POLICY_NAME myfifo\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(src, "struct myfifo_state {"));
	CU_ASSERT_PTR_NOT_NULL(strstr(src, "myfifo_params[] = {"));
	CU_ASSERT_PTR_NULL(strstr(src, "tmpl_"));
	CU_ASSERT_PTR_NULL(strstr(src, "#define POLICY_NAME template"));
	CU_ASSERT_PTR_NULL(strstr(src, "copy-me example"));
	CU_ASSERT_PTR_NOT_NULL(strstr(src, "POL_PLUGIN("));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, "myfifo.so: myfifo.c"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, "pkg-config --cflags "
				      "colosim-policy"));
	free(src);
	free(mk);
	/* A second copy over the first is refused; so are built-in names. */
	snprintf(cmd, sizeof cmd, "%s policy new myfifo --dir %s/myfifo",
		 test_bin(), test_tmpdir());
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(lines(err) == 1 && strstr(err, "exists") != NULL);
	snprintf(cmd, sizeof cmd, "%s policy new colti --dir %s/x",
		 test_bin(), test_tmpdir());
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(strstr(err, "built-in") != NULL);
	snprintf(cmd, sizeof cmd, "%s policy nwe", test_bin());
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(strstr(err, "did you mean new?") != NULL);
}

/* The metric `name` of a replay --json output, or NaN. */
static double json_metric(const char *text, const char *name)
{
	json_t *o = json_loads(text, 0, NULL);
	double v = json_number_value(json_object_get(o, name));

	if (json_object_get(o, name) == NULL)
		v = -1;
	json_decref(o);
	return v;
}

/* The plugin replays as the template it was copied from: the same
** metrics to the last bit (the JSON keeps 10 digits). */
static void test_replay_plugin(void)
{
	const char *so = test_build_plugin("myfifo");
	char cmd[1024], out[8192], err[1024];
	struct world_config cfg = tw_config(&pol_template);
	struct tw_world t;

	if (so == NULL)
		return;
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --plugin %s "
		 "--policy myfifo --cluster 1x4:a100-80gb --json", test_bin(),
		 so);
	CU_ASSERT_EQUAL_FATAL(test_sh(cmd, out, sizeof out, err, sizeof err),
			      0);
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, "traces/ref/colti.csv",
					  "1x4:a100-80gb", &cfg, NULL), 0);
	TEST_ASSERT_CLOSE(json_metric(out, "makespan_s"),
			  run_result_get(&t.res, "makespan_s"), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_metric(out, "jobs_done"),
			       run_result_get(&t.res, "jobs_done"), 0);
	CU_ASSERT(json_metric(out, "jobs_done") > 0);
	tw_close(&t);
	/* Its parameter table works through --param, typos included. */
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --plugin %s "
		 "--policy myfifo --cluster 1x4:a100-80gb --param headrom=0.1",
		 test_bin(), so);
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(lines(err) == 1 &&
		  strstr(err, "did you mean headroom?") != NULL);
	/* list policies shows it, with where it came from. */
	snprintf(cmd, sizeof cmd, "%s list policies --plugin %s", test_bin(),
		 so);
	CU_ASSERT_EQUAL(test_sh(cmd, out, sizeof out, NULL, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "myfifo       from the template"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(plugin "));
	snprintf(cmd, sizeof cmd, "%s list policies myfifo --plugin %s",
		 test_bin(), so);
	CU_ASSERT_EQUAL(test_sh(cmd, out, sizeof out, NULL, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "headroom             number   "
				      "[0, 0.9]"));
	/* Without --plugin it is unknown. */
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --policy "
		 "myfifo --cluster 1x4:a100-80gb", test_bin());
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(strstr(err, "unknown policy 'myfifo'") != NULL);
}

/* Compiles src (C text) into TMP/name.so against the tree's headers. */
static const char *build_so(const char *name, const char *src,
			    const char *extra)
{
	static char so[8][600];
	static int k;
	char *p = so[k++ & 7], c[600], cmd[2048];
	FILE *f;

	snprintf(c, sizeof c, "%s/%s.c", test_tmpdir(), name);
	snprintf(p, sizeof so[0], "%s/%s.so", test_tmpdir(), name);
	if (src != NULL) {
		if ((f = fopen(c, "w")) == NULL)
			return NULL;
		fputs(src, f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "cc -std=c11 -fPIC -shared "
		 "-fvisibility=hidden -I. %s -o %s %s",
		 extra, p, src != NULL ? c : "");
	return test_sh(cmd, NULL, 0, NULL, 0) == 0 ? p : NULL;
}

#define OPS(name, ver, desc) \
	"#include \"policies/policy.h\"\n" OPS_BODY(name, ver, desc)
#define OPS_BODY(name, ver, desc) \
	"static int s(struct world *w, void *st) { (void)w; (void)st; " \
	"return 0; }\n" \
	"const struct pol_ops pol_x = { .iVersion = " ver ", .zName = \"" \
	name "\", .zDesc = \"" desc "\", .xSchedule = s };\n"

static void expect_refused(const char *so, int code, const char *has)
{
	struct pol_catalog c;
	struct sim_err err = { 0, "" };
	size_t n;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(so);
	pol_catalog_init(&c);
	n = c.n;
	rc = pol_catalog_load(&c, so, &err);
	if (rc != code || strstr(err.msg, has) == NULL ||
	    strncmp(err.msg, so, strlen(so)) != 0)
		fprintf(stderr, "\n  %s: rc %d (want %d): %s\n", so, rc, code,
			err.msg);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, has));
	CU_ASSERT_EQUAL(strncmp(err.msg, so, strlen(so)), 0);
	CU_ASSERT_EQUAL(c.n, n);              /* nothing added */
	CU_ASSERT_EQUAL(c.nhandles, 0);
	pol_catalog_fini(&c);
}

static void test_refused(void)
{
	char cmd[1024], err[1024], want[200];
	const char *newer;

	if (test_build_plugin("myfifo") == NULL)
		return;
	newer = build_so("newer", OPS("newer", "POL_IFACE_VERSION + 1",
				      "from the future") "POL_PLUGIN(&pol_x)\n",
			 "");
	snprintf(want, sizeof want, "interface version %d; this colosim "
		 "knows 1..%d", POL_IFACE_VERSION + 1, POL_IFACE_VERSION);
	expect_refused(newer, SIM_EVERSION, want);
	/* Compiled against another policy.h: the view's structures differ
	** in size, so the stamp must be this colosim's. */
	expect_refused(build_so("unstamped", OPS("unstamped", "2", "old")
				"const struct pol_ops *const *"
				"colosim_policy_plugin(int v);\n"
				"const struct pol_ops *const *"
				"colosim_policy_plugin(int v) { static const "
				"struct pol_ops *const a[] = { &pol_x, 0 }; "
				"(void)v; return a; }\n",
				"-fvisibility=default"), SIM_EVERSION,
		       "exports no colosim_policy_plugin_iface");
	snprintf(want, sizeof want, "built against policy.h of interface "
		 "version %d; this colosim's is %d", POL_IFACE_VERSION - 1,
		 POL_IFACE_VERSION);
	{
		char stale[64];
		snprintf(stale, sizeof stale, "-DSTALE_V=%d",
			 POL_IFACE_VERSION - 1);
		expect_refused(build_so("stale", "#include "
					"\"policies/policy.h\"\n"
					"#undef POL_IFACE_VERSION\n"
					"#define POL_IFACE_VERSION STALE_V\n"
					OPS_BODY("stale", "1", "stale")
					"POL_PLUGIN(&pol_x)\n", stale),
			       SIM_EVERSION, want);
	}
	expect_refused(build_so("shadow", OPS("exclusive", "2", "mine")
				"POL_PLUGIN(&pol_x)\n", ""), SIM_EEXIST,
		       "policy exclusive is already defined (built in)");
	expect_refused(build_so("tmplcopy", NULL, "-DCOLOSIM_PLUGIN "
				"policies/template.c"), SIM_EEXIST,
		       "a copy of the template that kept its name");
	expect_refused(build_so("nosym", OPS("nosym", "2", "no entry"), ""),
		       SIM_EINVAL, "exports no colosim_policy_plugin");
	expect_refused(build_so("noname", OPS("Bad Name", "2", "x")
				"POL_PLUGIN(&pol_x)\n", ""), SIM_EINVAL,
		       "lower-case");
	expect_refused("no/such/plugin.so", SIM_ENOENT, "no such plugin file");
	/* The command line says it in one line and exits 2. */
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --plugin %s "
		 "--policy newer --cluster 1x1:a100-80gb", test_bin(), newer);
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	snprintf(want, sizeof want, "was built for policy interface version "
		 "%d", POL_IFACE_VERSION + 1);
	if (lines(err) != 1 || strstr(err, want) == NULL)
		fprintf(stderr, "\n  %s: %s\n", cmd, err);
	CU_ASSERT(lines(err) == 1 && strstr(err, want) != NULL);
	/* The same file twice adds it once; two plugins side by side. */
	{
		struct pol_catalog c;
		struct sim_err e = { 0, "" };
		const char *so = test_build_plugin("myfifo");
		const char *other = test_build_plugin("other");
		size_t n;
		pol_catalog_init(&c);
		n = c.n;
		CU_ASSERT_EQUAL(pol_catalog_load(&c, so, &e), 0);
		CU_ASSERT_EQUAL(pol_catalog_load(&c, so, &e), 0);
		CU_ASSERT_EQUAL(c.n, n + 1);
		if (other != NULL)
			CU_ASSERT_EQUAL(pol_catalog_load(&c, other, &e), 0);
		CU_ASSERT_PTR_NOT_NULL(pol_catalog_find(&c, "myfifo"));
		CU_ASSERT_PTR_NOT_NULL(pol_catalog_find(&c, "other"));
		CU_ASSERT_STRING_EQUAL(pol_catalog_origin(&c,
			pol_catalog_find(&c, "myfifo")), so);
		CU_ASSERT_PTR_NULL(pol_catalog_origin(&c,
			pol_catalog_find(&c, "colti")));
		pol_catalog_fini(&c);
	}
}

/* plugins = ... in a config, relative to the config's folder; the runs
** are simulated in forked workers, which inherit the loaded plugin. */
static void test_config_plugins(void)
{
	char ini[600], db[600], cmd[2048], out[16384], err[1024];
	const char *so = test_build_plugin("myfifo");
	sqlite3 *h;
	sqlite3_stmt *st;
	FILE *f;
	int n = -1;

	if (so == NULL)
		return;
	snprintf(ini, sizeof ini, "%s/plug.ini", test_tmpdir());
	snprintf(db, sizeof db, "%s/plug.db", test_tmpdir());
	f = fopen(ini, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "[experiment]\nname = plug\ncluster = 1x2:a100-80gb\n"
		"replications = 2\nplugins = myfifo/myfifo.so\n"
		"gen.jobs = 6\ngen.infer-frac = 0\ngen.models = resnet50:1\n"
		"[sweep]\n"
		"policy = exclusive, myfifo\npolicy.myfifo.headroom = 0, 0.5\n"
		"[policy.myfifo]\nheadroom = 0.1\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s run %s --dry-run", test_bin(), ini);
	CU_ASSERT_EQUAL(test_sh(cmd, out, sizeof out, err, sizeof err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "myfifo headroom=0.5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "6 runs = 3 variants x 1 setting x "
				      "2 replications"));
	snprintf(cmd, sizeof cmd, "%s run %s -j 2 -o %s", test_bin(), ini, db);
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 0);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs WHERE policy = "
			       "'myfifo' AND status = 'done'", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	CU_ASSERT_EQUAL(n, 4);
	/* A swept value out of the plugin's range: refused before any run. */
	snprintf(cmd, sizeof cmd, "sed -i s/0,\\ 0.5/0,\\ 0.95/ %s && %s run "
		 "%s --dry-run", ini, test_bin(), ini);
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(lines(err) == 1 && strstr(err, "plug.ini:11: [sweep] "
		  "policy.myfifo.headroom: parameter headroom = '0.95': "
		  "expected a number in [0, 0.9]") != NULL);
	/* A missing plugin names the config line. */
	snprintf(cmd, sizeof cmd, "sed -i s/myfifo.so/nofifo.so/ %s && %s run "
		 "%s --dry-run", ini, test_bin(), ini);
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 2);
	CU_ASSERT(strstr(err, "plug.ini:5: [experiment] plugins: ") != NULL);
}

/* make install-policy-dev: the header, its base headers and the .pc file
** build a plugin with pkg-config alone, no source tree. */
static void test_install_dev(void)
{
	char cmd[4096], out[1024], err[2048], so[700], bin[2100];
	struct pol_catalog c;
	struct sim_err e = { 0, "" };
	const char *tmp = test_tmpdir();

	if (test_build_plugin("myfifo") == NULL)
		return;
	snprintf(cmd, sizeof cmd, "make -s install-policy-dev PREFIX=%s/pfx "
		 ">/dev/null", tmp);
	CU_ASSERT_EQUAL_FATAL(test_sh(cmd, NULL, 0, err, sizeof err), 0);
	snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH=%s/pfx/share/pkgconfig "
		 "pkg-config --cflags colosim-policy", tmp);
	CU_ASSERT_EQUAL(test_sh(cmd, out, sizeof out, NULL, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/pfx/include/colosim"));
	if (test_bin()[0] == '/')
		snprintf(bin, sizeof bin, "%s", test_bin());
	else
		snprintf(bin, sizeof bin, "%s/%s", getcwd(out, sizeof out) ?
			 out : ".", test_bin());
	snprintf(cmd, sizeof cmd, "cd %s && %s policy new pcfifo >/dev/null && "
		 "PKG_CONFIG_PATH=%s/pfx/share/pkgconfig make -s -C pcfifo "
		 "COLOSIM= >/dev/null", tmp, bin, tmp);
	CU_ASSERT_EQUAL_FATAL(test_sh(cmd, NULL, 0, err, sizeof err), 0);
	snprintf(so, sizeof so, "%s/pcfifo/pcfifo.so", tmp);
	pol_catalog_init(&c);
	CU_ASSERT_EQUAL(pol_catalog_load(&c, so, &e), 0);
	CU_ASSERT_PTR_NOT_NULL(pol_catalog_find(&c, "pcfifo"));
	pol_catalog_fini(&c);
}

TEST_REGISTER(plugin)
{
	static const struct test_case cases[] = {
		{ "policy new writes a plugin that builds", test_policy_new },
		{ "a plugin replays as the template", test_replay_plugin },
		{ "the loader refuses bad plugins in one line", test_refused },
		{ "a config's plugins run in the workers",
		  test_config_plugins },
		{ "install-policy-dev builds a plugin via pkg-config",
		  test_install_dev },
		{ NULL, NULL }
	};
	return test_add_suite("plugin", cases);
}
