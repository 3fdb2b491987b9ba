/*
** datadir.h: finding colosim's data files (device profiles, the trace
** manifest) wherever the binary runs: from a checkout, from its build
** folder, installed under a prefix, or named by the user.
**
** An item (a folder or a file) is looked for in this order:
**
**   1. the command-line option's value (`--devices DIR`), when given;
**   2. the environment variable (`COLOSIM_DEVICES`), when set and not empty;
**   3. CHECKOUT under the current directory (`./models/devices`: run from
**      a checkout);
**   4. ROOT/CHECKOUT, where ROOT is the folder above the running binary's
**      folder (`/proc/self/exe`): a binary run as build/colosim from
**      anywhere finds the checkout it was built in;
**   5. ROOT/share/colosim/SHARE: the prefix the binary is installed in
**      (PREFIX/bin/colosim next to PREFIX/share/colosim/devices);
**   6. COLOSIM_PREFIX/share/colosim/SHARE, the prefix compiled in
**      (`make PREFIX=...`, default /usr/local).
**
** 1 and 2 are taken as given: a path the user named that does not exist
** is an error naming it and where it came from, never silently replaced
** by another.  3 to 6 count only when the path exists.  When none does,
** the error names the option, the variable and every path tried.
*/
#ifndef COLOSIM_SIM_DATADIR_H
#define COLOSIM_SIM_DATADIR_H

#include <stddef.h>

#include "sim/err.h"

struct sim_datadir {
	const char *what;       /* "device profiles": names the item in errors */
	const char *given;      /* the option's value; NULL: not given */
	const char *option;     /* "--devices" (for the error message) */
	const char *env;        /* "COLOSIM_DEVICES" */
	const char *checkout;   /* "models/devices", relative to a checkout */
	const char *share;      /* "devices", relative to PREFIX/share/colosim */
	/* For tests; NULL in normal use: */
	const char *exe;        /* the binary's path (NULL: /proc/self/exe) */
	const char *prefix;     /* the compiled-in prefix (NULL: COLOSIM_PREFIX;
				    "" : none) */
};

/*
** Writes the path of q's item into out (size n) and returns 0; or
** SIM_ENOENT for a given or environment path that does not exist, or
** with a message naming q->option, q->env and every path
** tried ("no device profiles: --devices not given, COLOSIM_DEVICES not
** set, and none of ./models/devices, /x/models/devices, ... exists"), or
** SIM_ERANGE when a path does not fit n.  Reads the environment and the
** file system; keeps no state.
*/
int sim_datadir_find(const struct sim_datadir *q, char *out, size_t n,
		     struct sim_err *err);

/* The compiled-in install prefix ("/usr/local" unless built otherwise). */
const char *sim_datadir_prefix(void);

#endif
