/*
** err.c: the error table (see err.h).
*/
#include "sim/err.h"

#include <stdarg.h>
#include <stdio.h>

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

int sim_err_set(struct sim_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err->code != 0)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}
