/*
** err.c: the error table and error reports (see err.h).
**
** A message is one line of printable text whatever went into it: input
** text quoted in a message (a field that spans lines, a file that is not
** what it should be) may hold line breaks or terminal escapes, so
** sim_err_set writes every control character as a visible escape ("\n",
** "\x1b").  Callers need not clean what they quote.
*/
#include "sim/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sim_strerror(int code)
{
	switch (code) {
	case SIM_OK: return "success";
#define SIM__CASE(name, val, text) case name: return text;
	SIM_ERRORS(SIM__CASE)
#undef SIM__CASE
	default: return "unknown error";
	}
}

const char *sim_errname(int code)
{
	switch (code) {
	case SIM_OK: return "SIM_OK";
#define SIM__NAME(name, val, text) case name: return #name;
	SIM_ERRORS(SIM__NAME)
#undef SIM__NAME
	default: return "SIM_E?";
	}
}

void sim_err_clear(struct sim_err *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

/* Copies s into out (n bytes, truncated), control characters escaped. */
static void one_line(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		size_t l;

		if (c >= 0x20 && c != 0x7f) {
			out[k++] = (char)c;
			continue;
		}
		if (c == '\n')
			snprintf(esc, sizeof esc, "\\n");
		else if (c == '\r')
			snprintf(esc, sizeof esc, "\\r");
		else if (c == '\t')
			snprintf(esc, sizeof esc, "\\t");
		else
			snprintf(esc, sizeof esc, "\\x%02x", c);
		l = strlen(esc);
		if (k + l + 1 > n)
			break;
		memcpy(out + k, esc, l);
		k += l;
	}
	out[k] = '\0';
}

int sim_err_set(struct sim_err *err, int code, const char *fmt, ...)
{
	char raw[SIM_ERR_MSG_MAX];
	va_list ap;

	if (err == NULL || err->code != 0)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	one_line(raw, err->msg, sizeof err->msg);
	return code;
}
