/*
** json.c: shared JSON values over jansson (see json.h).
*/
#include "experiments/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *exp_json_text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;
	size_t i;

	if (j != NULL)
		return j;
	copy = malloc(strlen(s) + 1);
	if (copy == NULL)
		return NULL;
	for (i = 0; s[i]; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	copy[i] = '\0';
	j = json_string(copy);
	free(copy);
	return j;
}

json_t *exp_json_num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}
