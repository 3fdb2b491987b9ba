#!/bin/sh
# tests/layering/check.sh: fails on any #include "..." edge between folders
# that tests/layering/edges.txt does not allow (DESIGN.md, "Layout"): an
# edge is allowed from the including file's folder or from the file itself.
# Prints one line per forbidden edge: FILE:LINE: FROM -> HEADER.
# Usage: sh tests/layering/check.sh [ROOT]   (ROOT: the project root, default .;
# the table is always ROOT/tests/layering/edges.txt)
set -eu
cd "${1:-.}"
table=tests/layering/edges.txt
[ -f "$table" ] || { echo "layering: $table: missing" >&2; exit 2; }
dirs=""
for d in sim models traces policies experiments plots tests; do
	[ -d "$d" ] && dirs="$dirs $d"
done
# shellcheck disable=SC2086
files=$(find $dirs \
	\( -name '*.c' -o -name '*.h' \) -not -path '*/microbench/*' | sort)
# shellcheck disable=SC2086
grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files |
awk -v table="$table" '
BEGIN {
	while ((getline line < table) > 0) {
		sub(/#.*/, "", line)
		if (split(line, f, " ") == 2) allow[f[1] " " f[2]] = 1
	}
}
{
	# FILE:LINE:#include "x/y.h"
	split($0, p, ":"); file = p[1]; ln = p[2]
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
	from = file; sub(/\/[^\/]*$/, "", from)
	if (inc !~ /\//) next            # generated, same-folder: cmds.inc
	to = inc; sub(/\/[^\/]*$/, "", to)
	if (to == from || allow[from " *"] || allow[from " " to] || \
	    allow[from " " inc] || allow[file " " to] || \
	    allow[file " " inc]) next
	printf "%s:%s: %s -> %s is not an allowed edge (%s)\n", \
		file, ln, from, inc, table
	bad++
}
END {
	if (bad) { printf "layering: %d forbidden include edge(s)\n", bad; exit 1 }
	print "layering: every include edge is allowed"
}'
