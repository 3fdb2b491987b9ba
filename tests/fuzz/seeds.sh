# tests/fuzz/seeds.sh: sourced by run.sh and regress.sh.  fuzz_seeds T DIR
# fills DIR with the seed inputs of target T: the hand-written files of
# tests/fuzz/seeds/T/ and the project's reference files of that kind
# (traces/ref for the trace reader and the replay, experiments/*.ini for the
# config parser, models/devices/*.ini for the device loader).  The replay
# harness takes one policy byte before the trace, so its seeds are the
# reference traces behind each policy byte 0..8.
fuzz_seeds() {
	_t=$1 _d=$2
	mkdir -p "$_d"
	if [ -d "tests/fuzz/seeds/$_t" ]; then
		for _f in tests/fuzz/seeds/"$_t"/*; do
			[ -f "$_f" ] && cp "$_f" "$_d/"
		done
	fi
	case $_t in
	trace)
		cp traces/ref/*.csv "$_d/" ;;
	config)
		cp experiments/*.ini "$_d/" ;;
	device)
		cp models/devices/*.ini "$_d/" ;;
	replay)
		_k=0
		for _f in traces/ref/*.csv tests/fuzz/seeds/trace/*; do
			[ -f "$_f" ] || continue
			# shellcheck disable=SC2059
			{ printf "\\$(printf %03o $((_k % 9)))"; cat "$_f"; } \
				> "$_d/ref-$_k"
			_k=$((_k + 1))
		done ;;
	esac
	return 0
}
