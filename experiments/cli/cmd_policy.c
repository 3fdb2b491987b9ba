/*
** cmd_policy.c: `colosim policy new NAME [--dir DIR] [--force]`: writes a
** ready-to-build policy plugin, policies/template.c with its name set
** everywhere, and a Makefile that builds NAME.so (docs/POLICIES.md,
** "Plugins").
**
** The template travels inside the binary (the Makefile turns
** policies/template.c into build/cli/template.inc), so an installed
** colosim writes the same file as a checkout.  Every edit is anchored on
** text the template must hold; when one is missing (the template changed
** and this file did not), nothing is written and the message says which.
*/
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiments/cli/cli.h"
#include "policies/catalog.h"
#include "sim/strbuf.h"

static const unsigned char template_c[] = {
#include "template.inc"
	0
};

enum { O_DIR, O_FORCE };

static const struct cli_opt opts[] = {
	[O_DIR] = { "dir", 0, "DIR", "where to write NAME.c and Makefile "
		    "(default: ./NAME)" },
	[O_FORCE] = { "force", 0, NULL, "replace files that exist" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"policy new", "colosim policy new NAME [--dir DIR] [--force]",
	"Writes DIR/NAME.c, a copy of colosim's policy template (a complete\n"
	"FIFO policy) with its name set everywhere, and DIR/Makefile, which\n"
	"builds NAME.so, a plugin: `colosim replay TRACE --plugin DIR/NAME.so\n"
	"--policy NAME ...`, or `plugins = NAME.so` in an experiment.  NAME is\n"
	"a C identifier in lower case, not a built-in policy's name.",
	opts, "The Makefile builds against this colosim's source tree when the "
	"binary runs\nfrom one (COLOSIM=DIR overrides), else with `pkg-config "
	"--cflags\ncolosim-policy` (after `make install`).  docs/POLICIES.md, "
	"\"Plugins\"."
};

struct new_args {
	const char *name, *dir;
	int force;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct new_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->name != NULL)
			return cli_usage_error("policy new: one NAME only "
					       "('%s' and '%s')", a->name, v);
		a->name = v;
		return 0;
	case O_DIR: a->dir = v; return 0;
	case O_FORCE: a->force = 1; return 0;
	}
	return 2;
}

/* 1 when name is [a-z][a-z0-9_]* of at most 40 characters. */
static int good_name(const char *s)
{
	size_t i;

	if (s[0] < 'a' || s[0] > 'z' || strlen(s) > 40)
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* Appends text with every `from` replaced by `to` to b. */
static void add_replaced(struct sim_strbuf *b, const char *text,
			 const char *from, const char *to)
{
	size_t nf = strlen(from);
	const char *p = text, *q;
	char chunk[256];

	while ((q = strstr(p, from)) != NULL) {
		while (p < q) {
			size_t n = (size_t)(q - p) < sizeof chunk - 1 ?
				   (size_t)(q - p) : sizeof chunk - 1;
			memcpy(chunk, p, n);
			chunk[n] = '\0';
			sim_strbuf_add(b, chunk);
			p += n;
		}
		sim_strbuf_add(b, to);
		p += nf;
	}
	sim_strbuf_add(b, p);
}

/* The plugin's opening comment, in place of the template's. */
static void add_header(struct sim_strbuf *b, const char *n)
{
	char buf[4096];

	snprintf(buf, sizeof buf,
"/*\n"
"** %s.c: the colosim policy %s, built as a plugin (%s.so).\n"
"**\n"
"** Written by `colosim policy new %s` from colosim's policy template: a\n"
"** complete, working policy (FIFO, each job on the GPUs with the most free\n"
"** memory, co-located under time-slicing) to make into yours.\n"
"**\n"
"**   make                                   builds %s.so (see Makefile)\n"
"**   colosim list policies %s --plugin ./%s.so\n"
"**   colosim replay TRACE --plugin ./%s.so --policy %s --cluster 1x4:a100-80gb\n"
"**   plugins = %s.so                  in an experiment's [experiment]\n"
"**\n"
"** The recipe (docs/POLICIES.md explains every hook, call and action):\n"
"**   1. Describe it: zDesc, at the end (colosim refuses the template's).\n"
"**   2. Put everything it remembers in `struct %s_state`.  The engine\n"
"**      allocates szState bytes, zeroed, per run; free what you allocate\n"
"**      yourself in xFini.\n"
"**   3. Declare each parameter once, in `%s_params` (key, type, range,\n"
"**      default, help, the state field it fills).  The engine rejects\n"
"**      unknown keys and bad values, naming the config line, and writes\n"
"**      every value (given or default) into the state before xInit.\n"
"**   4. In xInit, derive what you need from the parameters, and set GPU\n"
"**      sharing modes and MIG layouts while the GPUs are empty.\n"
"**   5. Write xSchedule: walk the pending queue (pol_pending_next) and\n"
"**      for each job pick GPUs and call pol_place.  SIM_ENOSPC from\n"
"**      pol_place is an ordinary \"does not fit\": go on.  Return a\n"
"**      negative code only for broken invariants; it stops the run.\n"
"**   6. Optional hooks: xOnArrival, xOnFinish, xOnRequest, xOnTimer.\n"
"**      Randomness comes from pol_rng(w), the policy's own stream.\n"
"**\n"
"** Include only policies/policy.h (and the C library).  Keep iVersion =\n"
"** POL_IFACE_VERSION: a colosim older than the header you build against\n"
"** refuses the plugin.  Loading a plugin runs its code inside colosim:\n"
"** colosim checks its tables (version, name, parameters), not its code.\n"
"*/\n", n, n, n, n, n, n, n, n, n, n, n, n);
	sim_strbuf_add(b, buf);
}

/* The source of the plugin NAME.c (heap), or NULL with *why set. */
static char *plugin_source(const char *name, const char **why)
{
	const char *t = (const char *)template_c;
	const char *body = strstr(t, "*/\n"), *def, *desc;
	struct sim_strbuf b = { NULL, 0, 0, 0 }, out = { NULL, 0, 0, 0 };
	char to[64];

	def = strstr(t, "#define POLICY_NAME template\n");
	desc = strstr(t, ".zDesc = \"copy-me example: ");
	*why = body == NULL ? "its opening comment" : def == NULL ?
	       "#define POLICY_NAME template" : desc == NULL ?
	       ".zDesc = \"copy-me example: " : NULL;
	if (*why != NULL)
		return NULL;
	add_header(&b, name);
	sim_strbuf_add(&b, body + 3);
	/* The name, the zDesc, then every tmpl_ identifier. */
	snprintf(to, sizeof to, "#define POLICY_NAME %s\n", name);
	add_replaced(&out, b.s ? b.s : "", "#define POLICY_NAME template\n",
		     to);
	free(b.s);
	b = out;
	memset(&out, 0, sizeof out);
	snprintf(to, sizeof to, ".zDesc = \"from the template: ");
	add_replaced(&out, b.s ? b.s : "", ".zDesc = \"copy-me example: ",
		     to);
	free(b.s);
	b = out;
	memset(&out, 0, sizeof out);
	snprintf(to, sizeof to, "%s_", name);
	add_replaced(&out, b.s ? b.s : "", "tmpl_", to);
	free(b.s);
	if (out.oom) {
		free(out.s);
		*why = "memory";
		return NULL;
	}
	return out.s;
}

/* The source tree this binary was built in (folder above build/), when
** it holds policies/policy.h; else "". */
static void source_tree(char *out, size_t n)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32], *s;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	struct stat st;

	out[0] = '\0';
	if (len <= 0)
		return;
	exe[len] = '\0';
	for (len = 0; len < 2; len++)
		if ((s = strrchr(exe, '/')) != NULL)
			*s = '\0';
	snprintf(probe, sizeof probe, "%s/policies/policy.h", exe);
	if (exe[0] == '/' && stat(probe, &st) == 0)
		snprintf(out, n, "%s", exe);
}

static int write_makefile(FILE *f, const char *name)
{
	char tree[PATH_MAX];

	source_tree(tree, sizeof tree);
	fprintf(f,
"# Builds %s.so, the colosim policy plugin %s (written by `colosim policy\n"
"# new %s`; docs/POLICIES.md, \"Plugins\").\n"
"#\n"
"#   make                  against COLOSIM, a colosim source tree, when set,\n"
"#                         else the installed headers (pkg-config\n"
"#                         colosim-policy, after colosim's `make install`)\n"
"#   make COLOSIM=DIR      against the colosim source tree in DIR\n"
"\n"
"COLOSIM ?= %s\n"
"CC ?= cc\n"
"CFLAGS ?= -O2 -g\n"
"ifneq ($(COLOSIM),)\n"
"POLICY_CFLAGS := -I$(COLOSIM) $(shell pkg-config --cflags gsl)\n"
"else\n"
"POLICY_CFLAGS := $(shell pkg-config --cflags colosim-policy)\n"
"endif\n"
"\n"
"%s.so: %s.c\n"
"\t$(CC) -std=c11 $(CFLAGS) -Wall -Wextra -fPIC -shared -fvisibility=hidden \\\n"
"\t\t-DCOLOSIM_PLUGIN $(POLICY_CFLAGS) -o $@ %s.c\n"
"\n"
"clean:\n"
"\trm -f %s.so\n"
"\n"
".PHONY: clean\n", name, name, name, tree, name, name, name, name);
	return ferror(f) ? -1 : 0;
}

/* Writes path from text (or the Makefile when text is NULL); 0 or the
** exit status after one line. */
static int write_file(const char *path, const char *text, const char *name,
		      int force)
{
	struct stat st;
	FILE *f;
	int bad;

	if (!force && stat(path, &st) == 0)
		return cli_usage_error("policy new: %s exists (--force "
				       "replaces it)", path);
	if ((f = fopen(path, "w")) == NULL)
		return cli_usage_error("policy new: %s: cannot write: %s",
				       path, strerror(errno));
	bad = text ? fputs(text, f) < 0 : write_makefile(f, name) != 0;
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "colosim: policy new: %s: write failed\n",
			path);
		return 1;
	}
	return 0;
}

static int policy_new(int argc, char **argv)
{
	struct new_args a = { NULL, NULL, 0 };
	char dir[PATH_MAX], path[PATH_MAX + 64];
	const char *why;
	char *src;
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.name == NULL)
		return cli_missing("policy new", "NAME", spec.zUsage);
	if (!good_name(a.name))
		return cli_usage_error("policy new: '%s': a policy name here is "
				       "a lower-case C identifier ([a-z][a-z0-9_]"
				       "*, at most 40)", a.name);
	if (pol_find(a.name) != NULL || strcmp(a.name, "template") == 0)
		return cli_usage_error("policy new: '%s' is %s; choose another "
				       "name", a.name, strcmp(a.name,
				       "template") == 0 ? "the template's name"
				       : "a built-in policy");
	snprintf(dir, sizeof dir, "%s", a.dir ? a.dir : a.name);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return cli_usage_error("policy new: %s: cannot create the "
				       "folder: %s", dir, strerror(errno));
	if ((src = plugin_source(a.name, &why)) == NULL) {
		fprintf(stderr, "colosim: policy new: the built-in template "
			"lacks %s (this colosim is inconsistent)\n", why);
		return 1;
	}
	snprintf(path, sizeof path, "%s/%s.c", dir, a.name);
	rc = write_file(path, src, a.name, a.force);
	free(src);
	snprintf(path, sizeof path, "%s/Makefile", dir);
	if (rc == 0)
		rc = write_file(path, NULL, a.name, a.force);
	if (rc == 0)
		printf("wrote %s/%s.c and %s/Makefile; build with: make -C %s\n",
		       dir, a.name, dir, dir);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: colosim policy new NAME [--dir DIR] [--force]\n\n"
		"  new   write a policy plugin to build outside colosim, from "
		"the template\n        (colosim policy new --help)\n");
}

static int cmd_policy(int argc, char **argv)
{
	if (argc < 2)
		return cli_missing("policy", "a subcommand (new)",
				   "colosim policy new NAME [--dir DIR]");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "new") == 0)
		return policy_new(argc - 1, argv + 1);
	return cli_unknown("policy", "subcommand", argv[1], "new");
}

const struct cli_cmd cli_cmd_policy = {
	"policy", "write a new policy plugin from the template (policy new)",
	cmd_policy
};
