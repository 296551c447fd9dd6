#!/bin/bash
# usage: merge.sh target...: minimizes work/<target> into min/<target> (set cover merge).
root=$(cd "$(dirname "$0")" && pwd)
for t in "$@"; do
  rm -rf "$root/min/$t"; mkdir -p "$root/min/$t" "$root/logs/merge-$t"
  (cd "$root/logs/merge-$t" && nice -n 19 "$root/target/x86_64-unknown-linux-gnu/release/$t" -merge=1 -timeout=20 -rss_limit_mb=2048 "$root/min/$t" "$root/work/$t" > "$root/logs/merge-$t.out" 2>&1)
  echo "$t: $(ls "$root/min/$t" | wc -l) files"
done
