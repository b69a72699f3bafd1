#!/bin/sh
# measure.sh: for each tiny main (cmd/, responses/cmd/), the time of a cold
# build (a fresh, empty GOCACHE; the module cache as it is), the binary's
# size (as built, and with -ldflags='-s -w': without symbols and DWARF),
# and its start-up: GODEBUG=inittrace=1's clock milliseconds, bytes
# and allocations summed over every package's init, the median of 11 runs
# (by milliseconds). Run it from this directory: sh measure.sh
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-18s %8s %11s %11s %8s %11s %7s\n' main build_s size_bytes stripped init_ms init_bytes allocs
for dir in cmd/baseline cmd/podcode cmd/fantasy-anthropic cmd/fantasy-google responses/cmd/fantasy-openai responses/cmd/fantasy-all; do
	name=$(basename "$dir")
	start=$(date +%s.%N)
	(cd "$dir" && GOCACHE="$out/cache-$name" go build -o "$out/$name" .)
	end=$(date +%s.%N)
	size=$(wc -c <"$out/$name")
	(cd "$dir" && GOCACHE="$out/cache-$name" go build -ldflags='-s -w' -o "$out/$name-stripped" .)
	stripped=$(wc -c <"$out/$name-stripped")
	init=$(for i in 1 2 3 4 5 6 7 8 9 10 11; do
		GODEBUG=inittrace=1 "$out/$name" 2>&1 | awk '$1 == "init" { ms += $5; b += $8; n += $10 } END { printf "%.3f %d %d\n", ms, b, n }'
	done | sort -n | sed -n 6p)
	rm -rf "$out/cache-$name"
	printf '%-18s %8.1f %11d %11d %8.3f %11d %7d\n' "$name" "$(awk "BEGIN { print $end - $start }")" "$size" "$stripped" $init
done
