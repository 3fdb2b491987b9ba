#!/bin/sh
# tests/fuzz/regress.sh BUILD TARGET...: runs each fuzz harness, linked with
# tests/fuzz/driver.c (no libFuzzer), once over its seeds and over
# tests/fuzz/regress/TARGET/ (the inputs that once crashed it), so every
# fuzz finding stays fixed in every build (make check; SANITIZE=1 too).
set -eu
build=$1
shift
. tests/fuzz/seeds.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colosim-regress-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
n=0
for t in "$@"; do
	fuzz_seeds "$t" "$tmp/$t"
	reg=""
	[ -d "tests/fuzz/regress/$t" ] && reg="tests/fuzz/regress/$t"
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! out=$("$build/fuzz/$t" "$tmp/$t" $reg 2>&1); then
		printf '%s\n' "$out" | tail -20
		echo "fuzz-regress: $t FAILED"
		fail=1
	fi
done
[ "$fail" = 0 ] && echo "fuzz-regress: $n targets, seeds and regressions pass"
exit "$fail"
