#!/bin/sh
# tests/golden/regen.sh: regenerates tests/golden/expected.csv, the golden
# metrics that `make check` compares against, from the current build.  Run
# it ON PURPOSE (`make golden`), after a deliberate model change, and say in
# the commit why the numbers moved.
#
# Each reference trace runs on the cluster named in tests/golden/clusters
# (`trace cluster` per line) under each baseline policy with seed 1.
set -eu
bin=${1:-build/colosim}
out=tests/golden/expected.csv
policies="exclusive timeslice mps mig colti"
tmp=$(mktemp)
echo "trace,cluster,policy,metric,value" > "$tmp"
while read -r trace cluster; do
	case "$trace" in ''|'#'*) continue ;; esac
	for p in $policies; do
		"$bin" replay "$trace" --policy "$p" --cluster "$cluster" \
			--seed 1 | awk -v t="$trace" -v c="$cluster" -v p="$p" '
			/^$/ { body = 1; next }
			body && NF == 2 && $1 != "wall_s" {
				printf "%s,%s,%s,%s,%s\n", t, c, p, $1, $2 }' >> "$tmp"
	done
done < tests/golden/clusters
mv "$tmp" "$out"
echo "wrote $out ($(($(wc -l < "$out") - 1)) metrics)"
