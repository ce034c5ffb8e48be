# Sourced by bench scripts: records a PCP archive once and caches it under
# bench/.cache (git-ignored), keyed by the logger config and parameters.
#
# bench_archive NAME INTERVAL SAMPLES CONFIG-TEXT prints the archive's base
# name, recording it first (from the pmcd on 127.0.0.1) when not cached.
bench_archive() {
	local name=$1 interval=$2 samples=$3 config=$4
	local key dir base tmp
	key=$(printf '%s\n%s\n%s\n' "$interval" "$samples" "$config" | sha256sum | cut -c1-12)
	dir="bench/.cache/$name-$key"
	base="$dir/$name"
	if [ ! -f "$dir/done" ]; then
		echo "recording $name archive ($samples samples every $interval) into $dir ..." >&2
		rm -rf "$dir"
		mkdir -p bench/.cache
		tmp=$(mktemp -d bench/.cache/tmp.XXXXXX)
		printf '%s\n' "$config" > "$tmp/config"
		# PCP_DERIVED_CONFIG= keeps libpcp's default derived metrics out.
		(cd "$tmp" && PCP_DERIVED_CONFIG= pmlogger -h 127.0.0.1 -c config -t "$interval" -s "$samples" -V3 -l pmlogger.log "$name") ||
			{ cat "$tmp/pmlogger.log" >&2; rm -rf "$tmp"; return 1; }
		touch "$tmp/done"
		mv "$tmp" "$dir"
	fi
	printf '%s\n' "$base"
}
