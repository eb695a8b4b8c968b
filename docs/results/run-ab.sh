#!/usr/bin/env bash
# Old and new weave binaries taking turns in one window: each configuration of
# CONFIGS runs once per binary per round, the order reversed in every other
# round, one process per run, every JSON line tagged with side, label and
# round. CONFIGS is a file of lines "LABEL ARGS..." (weave's arguments, split
# on white space; '#' starts a comment line; labels of letters, digits, '.',
# '_' and '-', each once). OUT/runs.jsonl must not exist yet. Run from the
# repository root
# after ./build.sh release:
#   OLD=/tmp/old/build/release/weave CONFIGS=docs/results/raw/DIR/configs \
#     OUT=docs/results/raw/DIR docs/results/run-ab.sh
# Before every process a conditioner touches and frees CONDITION_GIB (8) GiB,
# so that each starts with memory in the same state (as run-issue18-ab.sh).
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
out=${OUT:?OUT must name the directory for the raw lines}
configs=${CONFIGS:?CONFIGS must name a file of "LABEL ARGS..." lines}
rounds=${ROUNDS:-2}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "ROUNDS must be 1..99, not '$rounds'" >&2; exit 2; }
condition_gib=${CONDITION_GIB:-8}
[[ $condition_gib =~ ^[0-9]{1,3}$ ]] || { echo "CONDITION_GIB must be 0..999, not '$condition_gib'" >&2; exit 2; }
[ -f "$old" ] && [ -x "$old" ] && [ -f "$new" ] && [ -x "$new" ] || { echo "OLD and NEW must be executable files" >&2; exit 2; }
mapfile -t lines < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$configs")
[ ${#lines[@]} -gt 0 ] || { echo "$configs holds no configuration" >&2; exit 2; }
declare -A seen=()
for config in "${lines[@]}"; do
  read -r -a words <<< "$config"
  label=${words[0]}
  # The label goes into each JSON line (and a sed script): plain names only.
  [[ $label =~ ^[A-Za-z0-9._-]+$ ]] || { echo "label '$label' must be letters, digits, '.', '_' or '-'" >&2; exit 2; }
  [ -z "${seen[$label]:-}" ] || { echo "label '$label' appears twice in $configs" >&2; exit 2; }
  seen[$label]=1
  [ ${#words[@]} -gt 1 ] || { echo "label '$label' has no arguments" >&2; exit 2; }
done
mkdir -p "$out"
runs=$out/runs.jsonl
[ ! -s "$runs" ] || { echo "$runs exists and is not empty: move it or choose another OUT" >&2; exit 2; }
: > "$runs"
condition() {
  [ "$condition_gib" -gt 0 ] || return 0
  python3 -c 'import mmap, sys
n = int(sys.argv[1]) << 30
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, n, 4096): m[i] = 1' "$condition_gib"
}
one() {  # side, label, args...
  local side=$1 label=$2
  shift 2
  local bin=$new
  [ "$side" = old ] && bin=$old
  echo "round $round $side: $label" >&2
  condition
  "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",\"round\":$round,/" >> "$runs"
}
for round in $(seq 1 "$rounds"); do
  sides="old new"
  [ $((round % 2)) -eq 0 ] && sides="new old"
  for config in "${lines[@]}"; do
    read -r -a words <<< "$config"
    for side in $sides; do one "$side" "${words[0]}" "${words[@]:1}"; done
  done
done
