/*
** zoo.c: the model zoo's table (zoo.h).
**
** The figures are computed once, on first use, by the builders of
** the files of models/zoo/ from the architectures; after that the table is
** read-only.  The one-time construction goes through C11 call_once, so
** it is safe even if several threads ask first at the same moment.  This
** is the only file-scope state of the zoo, and it is a constant once
** built: no call can change it.
*/
#include "models/zoo.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <threads.h>

#include "models/zoo/build.h"

#define ZOO_N 40

static struct zoo__slot zoo_slots[ZOO_N];
static size_t zoo_n;
static once_flag zoo_once = ONCE_FLAG_INIT;

static void zoo_build(void)
{
	size_t n = 0;

	n += (size_t)zoo__build_resnet(&zoo_slots[n]);
	n += (size_t)zoo__build_vgg(&zoo_slots[n]);
	n += (size_t)zoo__build_inception(&zoo_slots[n]);
	n += (size_t)zoo__build_densenet(&zoo_slots[n]);
	n += (size_t)zoo__build_mobilenet(&zoo_slots[n]);
	n += (size_t)zoo__build_transformers(&zoo_slots[n]);
	n += (size_t)zoo__build_llms(&zoo_slots[n]);
	n += (size_t)zoo__build_gavel(&zoo_slots[n]);
	n += (size_t)zoo__build_lucid(&zoo_slots[n]);
	zoo_n = n;
}

size_t zoo_count(void)
{
	call_once(&zoo_once, zoo_build);
	return zoo_n;
}

const struct zoo_model *zoo_at(size_t i)
{
	if (i >= zoo_count())
		return NULL;
	return &zoo_slots[i].m;
}

const struct zoo_model *zoo_find(const char *name)
{
	size_t i, n = zoo_count();

	if (name == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcasecmp(zoo_slots[i].m.name, name) == 0)
			return &zoo_slots[i].m;
	return NULL;
}

void zoo_names(char *buf, size_t n)
{
	size_t i, used = 0, count = zoo_count();

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < count && used < n; i++) {
		int w = snprintf(buf + used, n - used, "%s%s",
				 i ? ", " : "", zoo_slots[i].m.name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
