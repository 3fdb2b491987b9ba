/*
** err.h: error codes and error reports shared by every layer of colosim.
**
** Functions that can fail return int: 0 on success or a negative SIM_E* code.
** When they take a `struct sim_err *`, they also fill it with a one-line,
** human-readable message (for input errors: "file:line:column: field: what
** was expected").  Library code never prints and never exits; only the
** command-line layer (sim/main.c and friends) turns a sim_err into output.
**
** The codes come from one X-macro table so that the enum, sim_strerror and
** sim_errname cannot drift apart.
*/
#ifndef COLOSIM_SIM_ERR_H
#define COLOSIM_SIM_ERR_H

#include <stddef.h>

#define SIM_ERRORS(X)                                                        \
	X(SIM_ENOMEM,   -1, "out of memory")                                 \
	X(SIM_EINVAL,   -2, "invalid argument")                              \
	X(SIM_EPAST,    -3, "event scheduled in the past")                   \
	X(SIM_ENOENT,   -4, "no such entry")                                 \
	X(SIM_EIO,      -5, "input/output error")                            \
	X(SIM_EPARSE,   -6, "malformed input")                               \
	X(SIM_ERANGE,   -7, "value out of range")                            \
	X(SIM_ENOSPC,   -8, "does not fit")                                  \
	X(SIM_ESTATE,   -9, "operation not allowed in this state")           \
	X(SIM_EEXIST,  -10, "already exists")                                \
	X(SIM_ELIB,    -11, "library call failed")                           \
	X(SIM_ESTOP,   -12, "stopped on request")                            \
	X(SIM_EVERSION,-13, "unsupported version")                           \
	X(SIM_ESTALE,  -14, "stale handle")

enum sim_errcode {
	SIM_OK = 0,
#define SIM__ENUM(name, val, text) name = (val),
	SIM_ERRORS(SIM__ENUM)
#undef SIM__ENUM
	SIM_E__LAST = -15
};

#define SIM_ERR_MSG_MAX 512

/*
** An error report.  Embedded by the caller (no allocation); `code` is 0 while
** nothing failed.  The message is always NUL-terminated and truncated if long.
*/
struct sim_err {
	int code;
	char msg[SIM_ERR_MSG_MAX];
};

/* A static English description of code; "unknown error" for foreign codes. */
const char *sim_strerror(int code);

/* The symbolic name of code ("SIM_EPARSE"), or "SIM_OK"/"SIM_E?". */
const char *sim_errname(int code);

/* Clears err (code 0, empty message).  err may be NULL. */
void sim_err_clear(struct sim_err *err);

/*
** Records code and a printf-style message in err (which may be NULL) and
** returns code, so that failures read `return sim_err_set(err, SIM_EPARSE,
** "%s:%d: ...", ...);`.  The first error wins: a second call on an err that
** already holds an error leaves it unchanged, so the root cause survives.
*/
int sim_err_set(struct sim_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif
