/*
** catalog.h: the policies one command may run: the built-in registry
** (policies/registry.c) and the plugins it loaded (docs/POLICIES.md,
** "Plugins").
**
** A catalog is an ordinary object the caller owns and passes down (the
** command line builds one from --plugin and a config's `plugins` key,
** the runner hands it to every run): there is no process-wide registry
** to mutate.  Lookups over a NULL catalog see the built-ins only.
**
** Loading a plugin runs its code (its constructors, then its entry
** function) inside colosim, with colosim's rights: load only code you
** would run.  colosim checks the tables it returns, not what they do.
**
** Ownership: pol_catalog_fini unloads the plugins; no ops table of a
** plugin, nor a world built on one, may outlive it.  A plugin's tables are
** shared with the processes the runner forks (they are in memory that
** fork copies).
*/
#ifndef COLOSIM_POLICIES_CATALOG_H
#define COLOSIM_POLICIES_CATALOG_H

#include <stddef.h>

#include "policies/policy.h"

#define POL_CATALOG_MAX 256           /* policies of one catalog */

struct pol_catalog {
	const struct pol_ops *v[POL_CATALOG_MAX + 1];  /* NULL-terminated */
	const char *origin[POL_CATALOG_MAX];  /* plugin path, NULL: built in */
	size_t n;
	void **handles;                   /* dlopen handles, in load order */
	char **paths;                     /* the paths they were loaded from */
	size_t nhandles;
};

/* The built-in policies into c (zeroed or not).  Cannot fail. */
void pol_catalog_init(struct pol_catalog *c);

/*
** Loads the plugin at path (a path: a bare file name is taken relative to
** the current directory, never searched for) and adds its policies.  The
** shared object must export POL_PLUGIN_SYMBOL (policy.h); each table it
** returns is checked as pol_registry_check does (name, description,
** xSchedule, interface version 1..POL_IFACE_VERSION, parameter table),
** and its name must be new to the catalog (a plugin cannot shadow a
** built-in) and not the template's.  The same file loaded twice adds
** nothing the second time.  0, or on failure (nothing added, the plugin
** unloaded) SIM_ENOENT (no such file), SIM_EIO (dlopen failed: its
** message), SIM_EINVAL (no entry symbol, an empty or broken table),
** SIM_EVERSION (a newer interface), SIM_EEXIST (a name taken), SIM_ERANGE
** (too many policies); every message starts with the path.
*/
int pol_catalog_load(struct pol_catalog *c, const char *path,
		     struct sim_err *err);

/* Unloads every plugin; c is empty afterwards (accepts NULL). */
void pol_catalog_fini(struct pol_catalog *c);

/* The policy named name (case-insensitive), or NULL.  c NULL: built-ins. */
const struct pol_ops *pol_catalog_find(const struct pol_catalog *c,
				       const char *name);

/* Where policy o came from: the plugin's path, or NULL when built in (or
** not in c). */
const char *pol_catalog_origin(const struct pol_catalog *c,
			       const struct pol_ops *o);

/* "exclusive, timeslice, ..." of c (NULL: built-ins) into buf. */
void pol_catalog_names(const struct pol_catalog *c, char *buf, size_t n);

/*
** The policy named name, or NULL with SIM_ENOENT in err: "WHERE: unknown
** policy 'colit' (did you mean colti? known: ...)" (where may be NULL:
** no prefix).
*/
const struct pol_ops *pol_catalog_need(const struct pol_catalog *c,
				       const char *name, const char *where,
				       struct sim_err *err);

#endif
