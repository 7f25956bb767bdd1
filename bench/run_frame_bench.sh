#!/usr/bin/env bash
# Measures the window's frame time while lesson 9 (FlashAttention-1 tiles) plays at N = 128,
# d = 64 in a 1280×800 window, one step per frame without vsync, and again while online softmax
# plays the largest vector the window takes (bench/largest-vector.json, 100,000 values), and
# writes the "Front end frame time" section of BENCHMARKS.md (replacing only that section). Uses the display, or Xvfb with
# Mesa's llvmpipe when there is none. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
frames=${FRAMES:-600}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target flashstep
run=("$build_dir/flashstep" --lesson attn-tiled --bench-frames "$frames" --width 1280 --height 800)
if [ -n "${DISPLAY:-}" ]; then
  out=$("${run[@]}")
else
  out=$(xvfb-run -a -s "-screen 0 1920x1080x24" "${run[@]}")
fi
echo "$out"
big_run=("$build_dir/flashstep" --scenario bench/largest-vector.json --bench-frames "$frames" --width 1280 --height 800)
if [ -n "${DISPLAY:-}" ]; then
  big_out=$("${big_run[@]}")
else
  big_out=$(xvfb-run -a -s "-screen 0 1920x1080x24" "${big_run[@]}")
fi
echo "$big_out"
load=$(cut -d' ' -f1 /proc/loadavg)
big=$(grep '^bench-result ' <<<"$big_out")
big_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$big"; }

result=$(grep '^bench-result ' <<<"$out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
renderer=$(sed -n 's/^bench: renderer \(.*\); .*/\1/p' <<<"$out")
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
compiler=$(${CXX:-c++} --version | head -1)

section=$(cat <<MD
## Front end frame time

${cpu}, $(nproc) cores (load average ${load} while it ran), ${compiler}, $(date +%F). Written by \`bench/run_frame_bench.sh\`:
\`flashstep --lesson attn-tiled --bench-frames ${frames}\` plays FlashAttention-1 tiles at N = 128,
d = 64 (M = 4096, so Br = $(field Br), Bc = $(field Bc), $(field steps) tile steps) in a 1280×800
window, one step per frame with vsync off, on ${renderer}.

| per frame ($(field frames) frames) | mean | median | p95 | max |
|---|---|---|---|---|
| frame time (wall clock) | $(field wall_mean) ms | $(field wall_median) ms | $(field wall_p95) ms | $(field wall_max) ms |
| CPU time of the process (all threads) | $(field cpu_mean) ms | $(field cpu_median) ms | | |

Building the ImGui frame (all panels, the 128×128 heatmaps included) takes $(field build) ms; llvmpipe
rasterises the $(field vertices) vertices ($(field calls) draw calls) in $(field raster) ms; the rest
is presenting through the X server. The budget for 60 frames per second is 16.7 ms.

The largest vector the window takes: \`flashstep --scenario bench/largest-vector.json --bench-frames ${frames}\`
plays online softmax on 100,000 values ($(big_field steps) steps), one step per frame. The vector view
draws one column per 2 pixels (each shows its largest element), and the Inputs panel shows such a
vector as a summary rather than a 700 kB text field.

| per frame ($(big_field frames) frames) | mean | median | p95 | max |
|---|---|---|---|---|
| frame time (wall clock) | $(big_field wall_mean) ms | $(big_field wall_median) ms | $(big_field wall_p95) ms | $(big_field wall_max) ms |

Building the frame takes $(big_field build) ms and rasterising its $(big_field vertices) vertices $(big_field raster) ms.
The target is 33 ms (30 frames per second). Drawing one rectangle per element took 638 ms
per frame (808,584 vertices; the build of 2026-11-24, measured on 2026-11-25 beside a CI run).
MD
)

file=BENCHMARKS.md
begin='<!-- BEGIN frontend -->'
end='<!-- END frontend -->'
[ -f "$file" ] || printf '# Benchmarks\n' >"$file"
tmp=$(mktemp "$file.XXXXXX")
body=$(mktemp)
trap 'rm -f "$tmp" "$body"' EXIT
printf '%s\n' "$section" >"$body"
if grep -qF "$begin" "$file"; then
  awk -v b="$begin" -v e="$end" '
    FNR == NR { text = text $0 "\n"; next }
    $0 == b { printf "%s\n%s", $0, text; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$body" "$file" >"$tmp"
else
  { cat "$file"; printf '\n%s\n' "$begin"; cat "$body"; printf '%s\n' "$end"; } >"$tmp"
fi
mv "$tmp" "$file"
echo "wrote the Front end frame time section of $file"
