#!/bin/bash
# usage: run1.sh target seconds [extra args]: one libFuzzer worker (-jobs=1), niced, bounded
# in time; its log is logs/<target>/fuzz-0.log.
t=$1; s=$2; shift 2
root=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$root/artifacts/$t" "$root/logs/$t"
cd "$root/logs/$t" || exit 1
exec nice -n 19 "$root/target/x86_64-unknown-linux-gnu/release/$t" -jobs=1 -max_total_time="$s" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$root/artifacts/$t/" "$@" "$root/work/$t" > "$root/logs/$t.out" 2>&1
