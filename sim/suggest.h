/*
** suggest.h: "did you mean" for names the user typed: the one edit
** distance every unknown-name message uses (commands, options, policies,
** parameters, models, devices, config keys), so that they all judge a
** typo alike.
**
** A candidate is suggested when its distance to the word (optimal string
** alignment: Levenshtein plus swaps of neighbours, ASCII case folded) is at most 1 for words of up to 3 characters and at
** most 2 for longer ones, and smaller than the word itself (so "x" never
** suggests "y").  The nearest wins; the first of equals, in list order.
** Pure functions: no allocation, no state.
*/
#ifndef COLOSIM_SIM_SUGGEST_H
#define COLOSIM_SIM_SUGGEST_H

#include <stddef.h>

/* The edit distance of a[0..na) and b[0..nb) (insertions, deletions,
** substitutions, neighbour swaps: 1 each), ASCII case folded, capped
** at cap (returns cap when it is at least cap; words past 63 characters
** are cap apart from everything). */
int sim_edit_distance(const char *a, size_t na, const char *b, size_t nb,
		      int cap);

/* 1 when distance d between a word of len characters and a candidate is
** a likely typo (the rule above). */
int sim_typo_close(size_t len, int d);

/*
** The candidate of list nearest to word, when it is a likely typo: list is
** "a, b, c" (the "known: ..." text of an error message: items separated by
** commas, blanks around them ignored).  Writes it to out (size n,
** truncated) and returns 1; 0 (out = "") when none is close or word is in
** the list.
*/
int sim_suggest(const char *word, const char *list, char *out, size_t n);

/* The same over the NULL-terminated array v. */
int sim_suggest_v(const char *word, const char *const *v, char *out,
		  size_t n);

/* "did you mean NAME? " into out (size n), or "" when none is close: the
** text to put before "known: ..." in a message. */
void sim_did_you_mean(const char *word, const char *list, char *out,
		      size_t n);

#endif
