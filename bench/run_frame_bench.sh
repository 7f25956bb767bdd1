#!/usr/bin/env bash
# Measures the window's frame time while lesson 9 (FlashAttention-1 tiles) plays at N = 128,
# d = 64 in a 1280×800 window, one step per frame without vsync, and again while online softmax
# plays the largest vector the window takes (bench/largest-vector.json, 100,000 values), and
# writes the "Front end frame time" section of BENCHMARKS.md (replacing only that section). Then it
# measures the window while a GPU recording of attn-tiled at N = 2048 runs in the background
# (bench/gpu-recording.json, see bench_step in app/frame_stats.h) and writes the section after it.
# ONLY=gpu-recording runs that last measurement alone. Uses the display, or Xvfb with Mesa's
# llvmpipe when there is none. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
frames=${FRAMES:-600}
only=${ONLY:-}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target flashstep
window() {
  if [ -n "${DISPLAY:-}" ]; then
    "$@"
  else
    xvfb-run -a -s "-screen 0 1920x1080x24" "$@"
  fi
}
file=BENCHMARKS.md
# Replaces what lies between the markers <!-- BEGIN $1 --> and <!-- END $1 --> with $2, or adds
# the section at the end of the file.
write_section() {
  local begin="<!-- BEGIN $1 -->" end="<!-- END $1 -->" tmp body
  [ -f "$file" ] || printf '# Benchmarks\n' >"$file"
  tmp=$(mktemp "$file.XXXXXX")
  body=$(mktemp)
  printf '%s\n' "$2" >"$body"
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
  rm -f "$body"
}
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
compiler=$(${CXX:-c++} --version | head -1)

if [ "$only" != gpu-recording ]; then
out=$(window "$build_dir/flashstep" --lesson attn-tiled --bench-frames "$frames" --width 1280 --height 800)
echo "$out"
big_out=$(window "$build_dir/flashstep" --scenario bench/largest-vector.json --bench-frames "$frames" --width 1280 --height 800)
echo "$big_out"
load=$(cut -d' ' -f1 /proc/loadavg)
big=$(grep '^bench-result ' <<<"$big_out")
big_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$big"; }

result=$(grep '^bench-result ' <<<"$out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
renderer=$(sed -n 's/^bench: renderer \(.*\); .*/\1/p' <<<"$out")

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

write_section frontend "$section"
echo "wrote the Front end frame time section of $file"
fi

# The window while a GPU recording runs: the window shows attn-tiled on the GPU at N = 128 and
# plays it one step per frame, while the bench keeps a GPU recording of attn-tiled at N = 2048
# (d = 64, Br = Bc = 64 from the default M) running on the GPU worker, one after another.
gpu_out=$(window "$build_dir/flashstep" --scenario bench/gpu-recording.json --bench-frames "$frames" --width 1280 --height 800)
echo "$gpu_out"
gpu_load=$(cut -d' ' -f1 /proc/loadavg)
gpu=$(grep '^bench-result ' <<<"$gpu_out")
gpu_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$gpu"; }
gpu_renderer=$(sed -n 's/^bench: renderer \(.*\); .*/\1/p' <<<"$gpu_out")
section=$(cat <<MD
## Front end frame time while a GPU recording runs

${cpu}, $(nproc) cores (load average ${gpu_load} while it ran), ${compiler}, $(date +%F). Written by
\`bench/run_frame_bench.sh\`: \`flashstep --scenario bench/gpu-recording.json --bench-frames ${frames}\`
shows attn-tiled on the GPU backend at N = 128, d = 64 and plays it one step per frame in a
1280×800 window with vsync off, on ${gpu_renderer}, while a GPU recording of attn-tiled at
N = 2048, d = 64 (Br = Bc = 64 from the default M) runs the way the window runs one: on the GPU
worker's thread, in its own context sharing the window's objects (app/gpu_worker.h). As soon as
one recording ends the next starts: one ran during $(gpu_field recording_frames) of the $(gpu_field frames) frames, and $(gpu_field recordings_ended) ended, in
$(gpu_field recording_s) s each on average. The window takes N ≤ 512 for what it shows, so the bench starts
this recording itself and drops its result.

| per frame ($(gpu_field frames) frames) | mean | median | p95 | max |
|---|---|---|---|---|
| frame time (wall clock) | $(gpu_field wall_mean) ms | $(gpu_field wall_median) ms | $(gpu_field wall_p95) ms | $(gpu_field wall_max) ms |
| CPU time of the process (all threads) | $(gpu_field cpu_mean) ms | $(gpu_field cpu_median) ms | | |

On llvmpipe this measures two CPU cores shared between the recording (llvmpipe's compute
threads running the shaders, then the worker turning the traces into steps) and the window (its
thread building the frame, llvmpipe's threads rasterising it); on a GPU the shaders and the
rasterising leave the CPU, and only the steps are built there. The same window with no
recording running is in the section above. The target is a p95 under 33 ms (30 frames per
second). Before, a GPU recording ran on the window's thread, and the window showed no frame until
it had ended.
MD
)
write_section frontend-gpu "$section"
echo "wrote the Front end frame time while a GPU recording runs section of $file"
