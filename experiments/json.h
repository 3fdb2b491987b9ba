/*
** json.h: the values colosim's JSON outputs (replay --json, report
** --format json) share, built with jansson, which does all escaping and
** number formatting.  Each returns a new reference (NULL when out of
** memory), to hand to json_object_set_new and friends.
*/
#ifndef COLOSIM_EXPERIMENTS_JSON_H
#define COLOSIM_EXPERIMENTS_JSON_H

#include <jansson.h>

/* A string; bytes that are not UTF-8 (a path in another encoding) become
** '?' instead of failing the whole document. */
json_t *exp_json_text(const char *s);

/* A number: null when NaN or infinite (no value); a whole number below
** 2^53 as an integer ("24", as printf's %g writes it, not "24.0"). */
json_t *exp_json_num(double v);

#endif
