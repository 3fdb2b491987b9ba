/*
** catalog.c: the built-in policies plus loaded plugins (see catalog.h).
**
** A plugin is checked whole before any of its tables joins the catalog:
** the candidate list (catalog so far, then the plugin's tables) goes
** through pol_registry_check, which judges a plugin exactly as the
** conformance suite judges a built-in.  The interface version is checked
** first and on its own, because a table from a newer colosim may have
** fields this one does not know: only iVersion and zName, which every
** version has, are read before it passes.
*/
#include "policies/catalog.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sim/suggest.h"

void pol_catalog_init(struct pol_catalog *c)
{
	size_t i;

	memset(c, 0, sizeof *c);
	for (i = 0; pol_registry[i] != NULL && i < POL_CATALOG_MAX; i++)
		c->v[c->n++] = pol_registry[i];
	c->v[c->n] = NULL;
}

void pol_catalog_fini(struct pol_catalog *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = c->nhandles; i-- > 0;) {
		dlclose(c->handles[i]);
		free(c->paths[i]);
	}
	free(c->handles);
	free(c->paths);
	memset(c, 0, sizeof *c);
}

const struct pol_ops *pol_catalog_find(const struct pol_catalog *c,
				       const char *name)
{
	size_t i;

	if (c == NULL)
		return pol_find(name);
	for (i = 0; i < c->n; i++)
		if (strcasecmp(c->v[i]->zName, name) == 0)
			return c->v[i];
	return NULL;
}

const char *pol_catalog_origin(const struct pol_catalog *c,
			       const struct pol_ops *o)
{
	size_t i;

	for (i = 0; c != NULL && i < c->n; i++)
		if (c->v[i] == o)
			return c->origin[i];
	return NULL;
}

void pol_catalog_names(const struct pol_catalog *c, char *buf, size_t n)
{
	size_t i, len = 0;

	if (c == NULL) {
		pol_names(buf, n);
		return;
	}
	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < c->n && len < n; i++) {
		int k = snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				 c->v[i]->zName);
		if (k < 0 || (size_t)k >= n - len) {
			if (n > 4)
				strcpy(buf + n - 4, "...");
			return;
		}
		len += (size_t)k;
	}
}

const struct pol_ops *pol_catalog_need(const struct pol_catalog *c,
				       const char *name, const char *where,
				       struct sim_err *err)
{
	const struct pol_ops *o = pol_catalog_find(c, name);
	char known[1024], hint[128];

	if (o != NULL)
		return o;
	pol_catalog_names(c, known, sizeof known);
	sim_did_you_mean(name, known, hint, sizeof hint);
	sim_err_set(err, SIM_ENOENT, "%s%sunknown policy '%s' (%sknown: %s)",
		    where ? where : "", where ? ": " : "", name, hint, known);
	return NULL;
}

/* Checks the plugin's tables t[0..nt) against c; 0 or an error naming
** path. */
static int check_tables(const struct pol_catalog *c, const char *path,
			const struct pol_ops *const *t, size_t nt,
			struct sim_err *err)
{
	const struct pol_ops *all[POL_CATALOG_MAX + 1];
	struct sim_err e;
	size_t i;

	if (c->n + nt > POL_CATALOG_MAX)
		return sim_err_set(err, SIM_ERANGE, "%s: more than %d "
				   "policies in all", path, POL_CATALOG_MAX);
	for (i = 0; i < nt; i++) {
		const struct pol_ops *o = t[i], *had;
		const char *name = o->zName ? o->zName : "(unnamed)";
		if (o->iVersion > POL_IFACE_VERSION || o->iVersion < 1)
			return sim_err_set(err, SIM_EVERSION, "%s: policy %s "
					   "was built for policy interface "
					   "version %d; this colosim knows "
					   "1..%d (rebuild it against this "
					   "colosim's policies/policy.h)",
					   path, name, o->iVersion,
					   POL_IFACE_VERSION);
		if (o == &pol_template)
			return sim_err_set(err, SIM_EEXIST, "%s: returns "
					   "colosim's own template, not a "
					   "table of its own (a symbol clash: "
					   "build it with -fvisibility=hidden)",
					   path);
		had = o->zName ? pol_catalog_find(c, o->zName) : NULL;
		if (had != NULL)
			return sim_err_set(err, SIM_EEXIST, "%s: policy %s is "
					   "already defined (%s%s); rename "
					   "the plugin's policy", path, name,
					   pol_catalog_origin(c, had) ?
					   "by " : "built in",
					   pol_catalog_origin(c, had) ?
					   pol_catalog_origin(c, had) : "");
	}
	for (i = 0; i < c->n; i++)
		all[i] = c->v[i];
	for (i = 0; i < nt; i++)
		all[c->n + i] = t[i];
	all[c->n + nt] = NULL;
	sim_err_clear(&e);
	if (pol_registry_check(all, &pol_template, &e) != 0)
		return sim_err_set(err, e.code, "%s: %s", path, e.msg);
	return 0;
}

/* The plugin's list of tables from its entry point, counted; 0 or an
** error. */
static int entry_tables(void *h, const char *path,
			const struct pol_ops *const **out, size_t *nt,
			struct sim_err *err)
{
	pol_plugin_fn entry;
	const struct pol_ops *const *t;
	void *sym;

	dlerror();
	sym = dlsym(h, POL_PLUGIN_SYMBOL);
	if (sym == NULL)
		return sim_err_set(err, SIM_EINVAL, "%s: not a colosim policy "
				   "plugin: it exports no %s (write "
				   "POL_PLUGIN(&pol_NAME) in it: "
				   "docs/POLICIES.md, \"Plugins\")", path,
				   POL_PLUGIN_SYMBOL);
	/* The policy.h it was compiled against (policy.h: the view's
	** structures returned by value differ between versions). */
	{
		const int *iface = dlsym(h, POL_PLUGIN_IFACE_SYMBOL);
		if (iface == NULL)
			return sim_err_set(err, SIM_EVERSION, "%s: built "
					   "against a policy.h older than "
					   "interface version 3 (it exports "
					   "no %s); this colosim's is %d: "
					   "rebuild it against this "
					   "colosim's policies/policy.h",
					   path, POL_PLUGIN_IFACE_SYMBOL,
					   POL_IFACE_VERSION);
		if (*iface != POL_IFACE_VERSION)
			return sim_err_set(err, SIM_EVERSION, "%s: built "
					   "against policy.h of interface "
					   "version %d; this colosim's is %d "
					   "(the view's structures differ): "
					   "rebuild it against this "
					   "colosim's policies/policy.h",
					   path, *iface, POL_IFACE_VERSION);
	}
	/* POSIX: a function pointer converts through void * (dlsym's own
	** contract); memcpy keeps -Wpedantic quiet about it. */
	memcpy(&entry, &sym, sizeof entry);
	t = entry(POL_IFACE_VERSION);
	for (*nt = 0; t != NULL && t[*nt] != NULL && *nt <= POL_CATALOG_MAX;)
		(*nt)++;
	if (t == NULL || *nt == 0)
		return sim_err_set(err, SIM_EINVAL, "%s: its %s returned no "
				   "policy", path, POL_PLUGIN_SYMBOL);
	*out = t;
	return 0;
}

int pol_catalog_load(struct pol_catalog *c, const char *path,
		     struct sim_err *err)
{
	const struct pol_ops *const *t;
	char buf[4096];
	struct stat sb;
	void *h, **hv;
	char **pv, *cp;
	size_t nt, i;
	int rc;

	if (strchr(path, '/') == NULL)
		snprintf(buf, sizeof buf, "./%s", path);
	else
		snprintf(buf, sizeof buf, "%s", path);
	if (stat(buf, &sb) != 0)
		return sim_err_set(err, SIM_ENOENT, "%s: no such plugin file",
				   path);
	dlerror();
	h = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *why = dlerror();
		return sim_err_set(err, SIM_EIO, "%s: cannot load the plugin: "
				   "%s", path, why ? why : "dlopen failed");
	}
	for (i = 0; i < c->nhandles; i++)
		if (c->handles[i] == h) {       /* loaded already */
			dlclose(h);
			return 0;
		}
	rc = entry_tables(h, path, &t, &nt, err);
	if (rc == 0)
		rc = check_tables(c, path, t, nt, err);
	cp = rc == 0 ? malloc(strlen(path) + 1) : NULL;
	hv = cp ? realloc(c->handles, (c->nhandles + 1) * sizeof *hv) : NULL;
	if (hv != NULL)
		c->handles = hv;
	pv = hv ? realloc(c->paths, (c->nhandles + 1) * sizeof *pv) : NULL;
	if (pv != NULL)
		c->paths = pv;
	if (rc == 0 && pv == NULL)
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (rc != 0) {
		free(cp);
		dlclose(h);
		return rc;
	}
	strcpy(cp, path);
	c->handles[c->nhandles] = h;
	c->paths[c->nhandles++] = cp;
	for (i = 0; i < nt; i++) {
		c->origin[c->n] = cp;
		c->v[c->n++] = t[i];
	}
	c->v[c->n] = NULL;
	return 0;
}
