/*
** cmd_traces.c: `colosim traces list [NAME]` and `colosim traces fetch
** NAME... [--dir DIR] [--mirror ROOT]`: the public traces of
** traces/manifest.csv, listed, downloaded and verified (traces/fetch.h;
** docs/TRACES.md, "Getting the public traces").
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "traces/fetch.h"
#include "traces/manifest.h"

#define TRACES_DEFAULT_DIR "data/traces"

#define TRACES_NAMES_MAX 64

enum { O_ALL, O_DIR, O_MIRROR, O_MANIFEST };

static const struct cli_opt opts[] = {
	[O_ALL] = { "all", 0, NULL, "every trace of the manifest (without a "
		    "mirror: every\nupstream one)" },
	[O_DIR] = { "dir", 0, "DIR", "where to put them (default "
		    TRACES_DEFAULT_DIR "; the\nimporters' paths are then "
		    "DIR/NAME/FILE)" },
	[O_MIRROR] = { "mirror", 0, "ROOT", "fetch from ROOT instead of the "
		       "upstreams: a folder laid\nout like DIR (e.g. "
		       "../shared/traces) or a URL prefix;\ndefault "
		       "$COLOSIM_TRACE_MIRROR.  Derived files (openb's\n"
		       "fgd-seed42 inputs) come only from a mirror." },
	[O_MANIFEST] = { "manifest", 0, "FILE", "the manifest (default "
			 "$COLOSIM_TRACE_MANIFEST, else\n./traces/manifest.csv, "
			 "the binary's checkout or prefix)" },
	{ NULL, 0, NULL, NULL }
};

static const char about[] =
	"The public traces the importers read (docs/TRACES.md): each file's\n"
	"upstream repository, commit, URL, size and SHA-256 are in\n"
	"traces/manifest.csv.  `list` prints one line per trace (with NAME: its\n"
	"files); `fetch` downloads the files of each NAME into DIR/FILE with\n"
	"libcurl, checks size and SHA-256 before moving a file into place, and\n"
	"skips files already present with the right checksum.";

#define USAGE "colosim traces list [NAME] [--manifest FILE]\n" \
	"       colosim traces fetch NAME... | --all [--dir DIR] " \
	"[--mirror ROOT]\n" \
	"                                          [--manifest FILE]"

static const struct cli_spec spec_traces = {
	"traces", USAGE, about, opts, NULL
};
static const struct cli_spec spec_list = {
	"traces list", USAGE, about, opts, NULL
};
static const struct cli_spec spec_fetch = {
	"traces fetch", USAGE, about, opts, NULL
};

struct traces_args {
	const char *manifest, *dir, *mirror;
	int all;
	const char *names[TRACES_NAMES_MAX];
	int nnames;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct traces_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->nnames == TRACES_NAMES_MAX)
			return cli_usage_error("traces: more than %d names",
					       TRACES_NAMES_MAX);
		a->names[a->nnames++] = v;
		return 0;
	case O_ALL: a->all = 1; return 0;
	case O_DIR: a->dir = v; return 0;
	case O_MIRROR: a->mirror = v; return 0;
	case O_MANIFEST: a->manifest = v; return 0;
	}
	return 2;
}

/* Parses the options and names of `traces SUB`.  Returns -1 to go on,
** else the exit status. */
static int parse(const struct cli_spec *spec, int argc, char **argv,
		 struct traces_args *a)
{
	int rc = cli_parse(spec, argc, argv, on_opt, a);

	if (rc == CLI_HELP)
		return 0;
	return rc != 0 ? rc : -1;
}

static int load(struct trace_manifest *m, const struct traces_args *a)
{
	struct sim_err err = { 0, "" };
	char path[4096];

	if (trace_manifest_find(a->manifest, path, sizeof path, &err) != 0 ||
	    trace_manifest_load(m, path, &err) != 0)
		return cli_report(&err);
	return 0;
}

static void human_size(uint64_t b, char *buf, size_t n)
{
	if (b >= 1000000)
		snprintf(buf, n, "%.1f MB", (double)b / 1e6);
	else if (b >= 1000)
		snprintf(buf, n, "%.1f kB", (double)b / 1e3);
	else
		snprintf(buf, n, "%llu B", (unsigned long long)b);
}

static void list_one(const struct trace_manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nfiles; i++) {
		const struct trace_file *f = &m->files[i];
		if (strcmp(f->trace, name) != 0)
			continue;
		printf("%s  %llu bytes  sha256 %s\n", f->file,
		       (unsigned long long)f->bytes, f->sha256);
		if (f->derived)
			printf("    derived: made by running %s at %s; from a "
			       "mirror only (docs/TRACES.md)\n", f->repo,
			       f->commit);
		else
			printf("    %s\n", f->url);
	}
}

static int cmd_list(int argc, char **argv)
{
	struct traces_args a;
	struct trace_manifest m;
	struct sim_err err = { 0, "" };
	const char *names[64];
	size_t nn, i, k;
	int rc;

	memset(&a, 0, sizeof a);
	if ((rc = parse(&spec_list, argc, argv, &a)) >= 0)
		return rc;
	if (a.nnames > 1)
		return cli_usage_error("traces list: one NAME at most");
	if ((rc = load(&m, &a)) != 0)
		return rc;
	if (a.nnames == 1) {
		if (trace_manifest_check(&m, a.names[0], &err) != 0) {
			trace_manifest_fini(&m);
			return cli_report(&err);
		}
		list_one(&m, a.names[0]);
		trace_manifest_fini(&m);
		return 0;
	}
	nn = trace_manifest_names(&m, names, 64);
	if (nn > 64)
		nn = 64;
	printf("%-29s %5s %9s  %-8s  %-58s %s\n", "name", "files", "size",
	       "kind", "upstream (repository@commit)", "licence");
	for (k = 0; k < nn; k++) {
		const struct trace_file *first = NULL;
		uint64_t bytes = 0;
		size_t nf = 0;
		int derived = 0;
		char sz[32], up[200];
		for (i = 0; i < m.nfiles; i++) {
			const struct trace_file *f = &m.files[i];
			if (strcmp(f->trace, names[k]) != 0)
				continue;
			if (first == NULL)
				first = f;
			nf++;
			bytes += f->bytes;
			derived |= f->derived;
		}
		human_size(bytes, sz, sizeof sz);
		snprintf(up, sizeof up, "%s%s@%.7s", derived ? "made by " : "",
			 first->repo, first->commit);
		printf("%-29s %5zu %9s  %-8s  %-58s %s\n", names[k], nf, sz,
		       derived ? "derived" : "upstream", up, first->licence);
	}
	trace_manifest_fini(&m);
	return 0;
}

/* 1 when a file of trace name is derived (on no upstream). */
static int is_derived(const struct trace_manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nfiles; i++)
		if (m->files[i].derived && strcmp(m->files[i].trace, name) == 0)
			return 1;
	return 0;
}

struct fetch_count {
	size_t got, present, replaced;
};

static void on_file(void *ctx, const struct trace_file *f,
		    enum trace_fetch_status st, const char *url)
{
	struct fetch_count *c = ctx;

	switch (st) {
	case TRACE_FETCH_PRESENT:
		c->present++;
		printf("present  %s (sha256 ok)\n", f->file);
		break;
	case TRACE_FETCH_REPLACED:
		c->replaced++;
		printf("replaced %s (the old copy had another checksum; "
		       "sha256 ok) from %s\n", f->file, url);
		break;
	case TRACE_FETCH_GOT:
		c->got++;
		printf("fetched  %s (%llu bytes, sha256 ok) from %s\n",
		       f->file, (unsigned long long)f->bytes, url);
		break;
	}
	fflush(stdout);
}

static int cmd_fetch(int argc, char **argv)
{
	struct traces_args a;
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct fetch_count cnt = { 0, 0, 0 };
	struct sim_err err = { 0, "" };
	const char *names[64];
	size_t nn, k;
	int i, rc;

	memset(&a, 0, sizeof a);
	a.dir = TRACES_DEFAULT_DIR;
	if ((rc = parse(&spec_fetch, argc, argv, &a)) >= 0)
		return rc;
	if (a.nnames == 0 && !a.all)
		return cli_missing("traces fetch", "NAME (or --all)",
				   "colosim traces fetch NAME... [--dir DIR] "
				   "[--mirror ROOT]");
	if (a.nnames > 0 && a.all)
		return cli_usage_error("traces fetch: NAME and --all exclude "
				       "each other");
	if (a.mirror == NULL)
		a.mirror = getenv("COLOSIM_TRACE_MIRROR");
	if ((rc = load(&m, &a)) != 0)
		return rc;
	/* Every name is checked before anything is downloaded. */
	for (i = 0; i < a.nnames; i++)
		if (trace_manifest_check(&m, a.names[i], &err) != 0) {
			trace_manifest_fini(&m);
			return cli_report(&err);
		}
	memset(&o, 0, sizeof o);
	o.dir = a.dir;
	o.mirror = a.mirror;
	o.progress = on_file;
	o.progress_ctx = &cnt;
	if (a.all) {
		/* Without a mirror, --all leaves out what only a mirror has. */
		nn = trace_manifest_names(&m, names, 64);
		for (k = 0; k < nn && k < 64 && rc == 0; k++) {
			if ((a.mirror == NULL || *a.mirror == '\0') &&
			    is_derived(&m, names[k])) {
				printf("skipped  %s: derived, from a mirror "
				       "only (--mirror; docs/TRACES.md)\n",
				       names[k]);
				continue;
			}
			rc = trace_fetch(&m, names[k], &o, &err);
		}
	} else {
		for (i = 0; i < a.nnames && rc == 0; i++)
			rc = trace_fetch(&m, a.names[i], &o, &err);
	}
	trace_manifest_fini(&m);
	if (rc != 0)
		return cli_report(&err);
	printf("traces: %zu fetched, %zu replaced, %zu already present, "
	       "in %s\n", cnt.got, cnt.replaced, cnt.present, a.dir);
	return 0;
}

static int cmd_traces(int argc, char **argv)
{
	if (argc < 2)
		return cli_missing("traces", "list or fetch",
				   "colosim traces list|fetch ...");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		cli_help(&spec_traces, stdout);
		return 0;
	}
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "fetch") == 0)
		return cmd_fetch(argc - 1, argv + 1);
	return cli_unknown("traces", "subcommand", argv[1], "list, fetch");
}

const struct cli_cmd cli_cmd_traces = {
	"traces", "list, download and verify the public traces", cmd_traces
};
