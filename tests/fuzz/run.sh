#!/bin/sh
# tests/fuzz/run.sh BUILD SECONDS TARGET...: a libFuzzer campaign of SECONDS
# per target (binaries from make FUZZ=1, in BUILD/fuzz/).  Each target's
# corpus lives in BUILD/fuzz-corpus/TARGET (kept between campaigns, seeded
# each time from tests/fuzz/seeds.sh); findings go to
# BUILD/fuzz-findings/TARGET/.  Prints one line per target (executions,
# corpus size, findings) and fails if any target found anything.
# FUZZ_FLAGS adds libFuzzer flags (e.g. -jobs=2).
set -eu
build=$1 secs=$2
shift 2
. tests/fuzz/seeds.sh
fail=0
total=0
for t in "$@"; do
	corpus=$build/fuzz-corpus/$t finds=$build/fuzz-findings/$t
	log=$build/fuzz-findings/$t.log
	mkdir -p "$corpus" "$finds"
	seeds=$(mktemp -d "${TMPDIR:-/tmp}/colosim-seeds-XXXXXX")
	fuzz_seeds "$t" "$seeds"
	dict=""
	[ -f "tests/fuzz/dict/$t.dict" ] && dict="-dict=tests/fuzz/dict/$t.dict"
	case $t in import-*) [ -f tests/fuzz/dict/import.dict ] &&
		dict="-dict=tests/fuzz/dict/import.dict" ;; esac
	rc=0
	# shellcheck disable=SC2086
	"$build/fuzz/$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$finds/" $dict ${FUZZ_FLAGS:-} \
		"$corpus" "$seeds" >"$log" 2>&1 || rc=$?
	rm -rf "$seeds"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	n=$(find "$finds" -type f | wc -l)
	size=$(find "$corpus" -type f | wc -l)
	printf 'fuzz: %-28s %10s execs  corpus %5s  findings %s\n' "$t" \
		"${execs:-?}" "$size" "$n"
	total=$((total + ${execs:-0}))
	if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
		fail=1
		grep -m3 -E 'ERROR|SUMMARY|fuzz check|unclean' "$log" || true
		echo "fuzz: $t: see $log and $finds/"
	fi
done
echo "fuzz: $total executions over $# targets"
exit "$fail"
