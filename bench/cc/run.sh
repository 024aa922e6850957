#!/usr/bin/env bash
# bench/cc/run.sh: the runs behind bench/CC.md. Each is one `roce incast` (simulated time, deterministic for its seed),
# run one after another; JSON into bench/cc/NAME.json, PNG plots into bench/cc/NAME/. Usage: bench/cc/run.sh [NAME...]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
out="$root/bench/cc"
declare -A runs=(
    [dcqcn-2]="-n 2 --cc dcqcn"
    [dcqcn-4]="-n 4 --cc dcqcn"
    [dcqcn-8]="-n 8 --cc dcqcn"
    [none-2]="-n 2 --cc none"
    [none-4]="-n 4 --cc none"
    [none-8]="-n 8 --cc none"
    [join-leave-dcqcn]="-n 4 --cc dcqcn --schedule staggered --duration 80 --stagger 10 --bin 1000"
    [join-leave-none]="-n 4 --cc none --schedule staggered --duration 80 --stagger 10 --bin 1000"
    [join-leave-clamp]="-n 4 --cc dcqcn,clamp_tgt_rate=1 --schedule staggered --duration 80 --stagger 10 --bin 1000"
    [params-1200-1-10]="-n 4 --cc dcqcn,rpg_time_reset=1200,rpg_ai_rate=1,rpg_hai_rate=10"
    [params-75-50-500]="-n 4 --cc dcqcn,rpg_time_reset=75,rpg_ai_rate=50,rpg_hai_rate=500"
)
names=("$@")
if [[ 0 -eq ${#names[@]} ]]; then
    names=(dcqcn-2 dcqcn-4 dcqcn-8 none-2 none-4 none-8 join-leave-dcqcn join-leave-none \
        join-leave-clamp params-1200-1-10 params-75-50-500)
fi
for name in "${names[@]}"; do
    # shellcheck disable=SC2086 # the options are words
    "$root/roce" incast ${runs[$name]} --seed 1 --json --plot "$out/$name" > "$out/$name.json"
    echo "$name: $(grep -o '"jain":[0-9.e-]*' "$out/$name.json") $(grep -o '"bottleneckDrops":[0-9]*' "$out/$name.json")"
done
