#!/usr/bin/env bash
# The CPU table of issue 36, for two builds of FlashStep on this machine: native (-march=native)
# and AVX2 (-march=x86-64-v3), each beside ggml built for the same instruction set.
#
#   bench/run_isa_table.sh GGML_NATIVE_BUILD GGML_AVX2_BUILD [GGML_SOURCE]
#
# GGML_*_BUILD are ggml build folders (cmake -B), CPU only: native with -DGGML_NATIVE=ON, AVX2
# with -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
# -DGGML_AVX512=OFF (bench/ggml/README.md). GGML_SOURCE (its include/) defaults to the source
# folder named in the native build's CMakeCache.txt. FlashStep is built into $WORK (default
# /tmp/flashstep-isa), with ccache when there is one. Every figure is measured in this run, the
# kernels taking turns with ggml and with each other, in separate processes, ROUNDS times
# (default 5); online softmax also at the two read-ahead distances core/fast.h chooses between for
# a CPU, taking turns (`bench_isa read-ahead`), the evidence for that choice on this one; and the
# sums' exponential against table-driven ones for the same instruction set (`bench_exp`). The
# Markdown table goes to standard output and to $WORK/isa-table.md. GGML_COMMIT
# names ggml's commit where its source is not a git checkout; TABLE_ONLY=1 writes the table again
# from the figures the last run left in $WORK/raw, measuring nothing. To measure on another
# machine (one with no compiler, say): BUILD_ONLY=1 here builds and copies ggml's libraries
# beside the programs in $WORK; copy $WORK there and run with MEASURE_ONLY=1 (the ggml folders
# are then not read: give any two names); copy $WORK/raw back and write the table with
# TABLE_ONLY=1. The machine's CPU, threads and load are kept in $WORK/raw/machine. THREADS
# (default: the number of cores) sets the threads of both programs. NATIVE_MARCH=ARCH builds the
# second column with -march=ARCH instead of -march=native (and ggml's native folder should then be
# built for the same set, GGML_NATIVE=OFF with its AVX-512 options): for a machine other than the
# one that builds, such as x86-64-v4 for any AVX-512 CPU.
# Run it on an otherwise idle machine.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: bench/run_isa_table.sh GGML_NATIVE_BUILD GGML_AVX2_BUILD [GGML_SOURCE]" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/flashstep-isa}
rounds=${ROUNDS:-5}
threads=${THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads
declare -A ggml_build=([native]="$1" [avx2]="$2")
ggml_src=${3:-$(sed -n 's/^ggml_SOURCE_DIR:STATIC=//p' "$1/CMakeCache.txt" 2>/dev/null || true)}
reads_ggml=1
[[ ${MEASURE_ONLY:-0} == 1 || ${TABLE_ONLY:-0} == 1 ]] && reads_ggml=0
for isa in native avx2; do
  [[ $reads_ggml == 1 ]] || continue
  if ! ls "${ggml_build[$isa]}"/src/libggml-cpu.* >/dev/null 2>&1; then
    echo "run_isa_table: ${ggml_build[$isa]} is not a ggml build folder (no src/libggml-cpu.*)" >&2
    exit 2
  fi
done
if [[ $reads_ggml == 1 && ! -f "$ggml_src/include/ggml.h" ]]; then
  echo "run_isa_table: no ggml source with include/ggml.h at '$ggml_src' (give it as the third argument)" >&2
  exit 2
fi
mkdir -p "$work"
# fig FILE KEY: the value of "KEY value" in FILE.
fig() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
raw="$work/raw"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$(date +%s)

if [[ ${TABLE_ONLY:-0} == 1 ]]; then  # the table again from the figures of the last run in $WORK
  built=$start done_at=$start
else
if [[ ${MEASURE_ONLY:-0} != 1 ]]; then
# ---- builds ----------------------------------------------------------------------------------
declare -A flags=([native]="-DFLASHSTEP_NATIVE=ON" [avx2]="-DFLASHSTEP_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3")
[[ -n ${NATIVE_MARCH:-} ]] && flags[native]="-DFLASHSTEP_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=$NATIVE_MARCH"
echo "${NATIVE_MARCH:-native}" >"$work/native-march"  # what the second column was built for
for isa in native avx2; do
  echo "building FlashStep ($isa) into $work/build-$isa" >&2
  # shellcheck disable=SC2086
  cmake -S "$repo" -B "$work/build-$isa" -DCMAKE_BUILD_TYPE=Release -DFLASHSTEP_BENCHMARKS=ON -DFLASHSTEP_TESTS=OFF \
    ${flags[$isa]} "${launcher[@]}" >"$work/cmake-$isa.log"
  cmake --build "$work/build-$isa" -j "$threads" --target bench_isa bench_exp >>"$work/cmake-$isa.log"
  cc -O2 -o "$work/ggml_fa_$isa" "$repo/bench/ggml/ggml_fa.c" -I"$ggml_src/include" -L"${ggml_build[$isa]}/src" \
    -lggml -lggml-base -lggml-cpu -lm -Wl,-rpath,"$(cd "${ggml_build[$isa]}/src" && pwd)"
  "$work/ggml_fa_$isa" --check >&2
  # ggml's libraries beside the programs, for a copy of $WORK measured elsewhere.
  mkdir -p "$work/lib-$isa"
  cp -L "${ggml_build[$isa]}"/src/libggml*.so* "$work/lib-$isa/"
done
fi
built=$(date +%s)
if [[ ${BUILD_ONLY:-0} == 1 ]]; then
  echo "built into $work in $((built - start)) s; nothing measured (BUILD_ONLY=1)" >&2
  exit 0
fi

# ---- measurements ----------------------------------------------------------------------------
rm -rf "$raw" && mkdir -p "$raw"
for isa in native avx2; do
  bi="$work/build-$isa/bench/bench_isa"
  for prog in "$bi" "$work/ggml_fa_$isa"; do
    [[ -x $prog ]] || { echo "run_isa_table: $prog is missing: build first (BUILD_ONLY=1)" >&2; exit 2; }
  done
  [[ -d $work/lib-$isa ]] && export LD_LIBRARY_PATH="$work/lib-$isa${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "measuring $isa" >&2
  "$bi" roof >"$raw/$isa-roof"
  for d in 64 128; do
    for ((r = 1; r <= rounds; ++r)); do
      "$bi" attn attn-tiled-v2 "$d" full 5 >"$raw/$isa-v2-$d-$r"
      "$work/ggml_fa_$isa" 4096 "$d" "$threads" 5 | awk '/^best/ { print "best_ms", $2 }' >"$raw/$isa-ggml-$d-$r"
      "$bi" attn attn-tiled "$d" full 5 >"$raw/$isa-v1-$d-$r"
      "$bi" attn attn-tiled-v2 "$d" causal 5 >"$raw/$isa-v2c-$d-$r"
      # FA-2, FA-1 and causal FA-2 again, taking turns run by run in one process: their ratios
      # without the seconds between processes, in which the machine can change its pace.
      "$bi" turns "$d" 5 >"$raw/$isa-turns-$d-$r"
    done
    "$bi" attn attn-tiled-v2 "$d" full 10 >"$raw/$isa-spread-$d"
    # The cores' own spread right after it: as many register-only runs, as long as FA-2's best.
    "$bi" steady "$(fig "$raw/$isa-spread-$d" best_ms)" 10 >"$raw/$isa-steady-$d"
    # And the shared cache's: every core reading a buffer the size of K and V (2·N·d floats),
    # which FA-2's threads read once for each of their Q blocks, as many runs as long.
    "$bi" steady-read "$(fig "$raw/$isa-spread-$d" best_ms)" 10 $((2 * 4096 * d)) >"$raw/$isa-steady-read-$d"
    "$bi" roof >"$raw/$isa-roof-after-$d"  # the roof again between the kernels
  done
  "$bi" softmax "$rounds" >"$raw/$isa-softmax"
  # Online softmax at the two distances the kernels choose from (core/fast.h, as `roof` names
  # them), taking turns: the evidence for the choice on this CPU.
  other=$(fig "$raw/$isa-roof" read_ahead_other) intel=$(fig "$raw/$isa-roof" read_ahead_intel)
  [[ -n $other && -n $intel ]] && "$bi" read-ahead 8 "$other" "$intel" >"$raw/$isa-read-ahead"
  # The sums' exponential against table-driven ones for the same instruction set (bench_exp),
  # where the copy measured has it.
  be="$work/build-$isa/bench/bench_exp"
  [[ -x $be ]] && "$be" 61 >"$raw/$isa-exp"
  "$bi" roof >"$raw/$isa-roof2"  # the roof again, after: how far the machine drifted
done
done_at=$(date +%s)
{
  echo "cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1 | tr ' ' '_')"
  # A guest's model name can be as plain as "Intel(R) Xeon(R) Processor": the family and model tell
  # such CPUs apart.
  echo "cpu_model family_$(sed -n 's/^cpu family[^:]*: //p' /proc/cpuinfo | head -1),_model_$(sed -n 's/^model[^n:]*: //p' /proc/cpuinfo | head -1)"
  echo "threads $threads"
  echo "date $(date -u +%Y-%m-%d)"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '_')"
  echo "measure_s $((done_at - built))"
  echo "native_march $(cat "$work/native-march" 2>/dev/null || echo native)"
} >"$raw/machine"
fi

# ---- the table -------------------------------------------------------------------------------
# ratio_range: from lines "a b" (a round each), min–max over the rounds of a / b, the medians of
# the a's and b's (ms), and the smallest ratio, separated by |.
ratio_range() {
  local pairs ma mb
  pairs=$(cat)
  ma=$(awk '{ print $1 }' <<<"$pairs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  mb=$(awk '{ print $2 }' <<<"$pairs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  awk -v ma="$ma" -v mb="$mb" '{ q = $1 / $2; if (NR == 1 || q < lo) lo = q; if (NR == 1 || q > hi) hi = q }
    END { printf "%.2f–%.2f×|%.2f|%.2f|%.4f", lo, hi, ma, mb, lo }' <<<"$pairs"
}
# range KIND_A KIND_B ISA D: ratio_range of best(A) / best(B), each the best of its own process.
range() {
  for ((r = 1; r <= rounds; ++r)); do
    echo "$(fig "$raw/$3-$1-$4-$r" best_ms) $(fig "$raw/$3-$2-$4-$r" best_ms)"
  done | ratio_range
}
# turns_range KIND_A KIND_B ISA D: the same of the bests of `bench_isa turns`, where the kernels
# took turns run by run in one process; empty where the run did not measure it.
turns_range() {
  [[ -f "$raw/$3-turns-$4-1" ]] || return 0
  for ((r = 1; r <= rounds; ++r)); do
    echo "$(fig "$raw/$3-turns-$4-$r" "$1_best_ms") $(fig "$raw/$3-turns-$4-$r" "$2_best_ms")"
  done | ratio_range
}
# turns_cell A B ISA D TARGET NAME_A NAME_B: a ratio's cell, its verdict from the kernels taking turns
# in one process where the run measured that, beside the ratio of separate processes.
turns_cell() {
  local rr ma mb lo tr tma tmb tlo
  IFS='|' read -r rr ma mb lo <<<"$(range "$1" "$2" "$3" "$4")"
  IFS='|' read -r tr tma tmb tlo <<<"$(turns_range "$1" "$2" "$3" "$4")"
  if [[ -n $tr ]]; then
    echo "$tr taking turns ($6 $tma ms, $7 $tmb ms) $(verdict "$tlo" "$5"); $rr in separate processes ($6 $ma ms, $7 $mb ms)"
  else
    echo "$rr ($6 $ma ms, $7 $mb ms) $(verdict "$lo" "$5")"
  fi
}
best_of() {  # best ms of kind K at d over the rounds
  for ((r = 1; r <= rounds; ++r)); do fig "$raw/$2-$1-$3-$r" best_ms; done | sort -g | head -1
}
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t) ? "**met**" : "**not met**" }'; }
# Where the figures were measured (raw/machine), which need not be where the table is written.
machine="$raw/machine"
cpu=$(fig "$machine" cpu | tr '_' ' ')
cpu_model=$(fig "$machine" cpu_model | tr '_' ' ')
[[ -n $cpu_model ]] && cpu="$cpu ($cpu_model)"
threads=$(fig "$machine" threads)
measured_on=$(fig "$machine" date)
load=$(fig "$machine" load | tr '_' ' ')
measure_s=$(fig "$machine" measure_s)
native_march=$(fig "$machine" native_march)
native_march=${native_march:-native}
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
ggml_commit=${GGML_COMMIT:-$(git -C "$ggml_src" rev-parse --short HEAD 2>/dev/null || echo "from $ggml_src")}
{
  echo "$cpu, $threads threads, $measured_on, FlashStep $commit, ggml $ggml_commit, load average $load at the end."
  echo "Written by \`bench/run_isa_table.sh ${ggml_build[native]} ${ggml_build[avx2]}\` ($rounds rounds; $([[ ${TABLE_ONLY:-0} == 1 || ${MEASURE_ONLY:-0} == 1 ]] || echo "builds $((built - start)) s, ")measurements $measure_s s)."
  echo "N = 4096, fp32, scale 1/√d, one head, $threads threads; FlashStep as \`flashstep run --algo A --n 4096 --d D --scale sqrt --steps none --repeat 5\` runs it (\`bench_isa attn\`), ggml's \`ggml_flash_attn_ext\` as \`bench/ggml/ggml_fa.c\` runs it, each its best of 5, taking turns in separate processes; a ratio is taken round by round and its range shown.$([[ -f "$raw/avx2-turns-64-1" ]] && echo " FA-1 / FA-2 and the causal speed-up are also measured with the three kernels taking turns run by run in one process (\`bench_isa turns\`, best of 5 each, in every round), and their verdict is taken from that.")"
  echo
  echo "| figure | AVX2 build (-march=x86-64-v3) | $([[ $native_march == native ]] && echo native || echo AVX-512) build (-march=$native_march) | target |"
  echo "|---|---|---|---|"
  row() { echo "| $1 | $2 | $3 | $4 |"; }
  declare -A peak bw
  # The roof is the largest of its measurements (before, between and after the kernels): a share
  # of peak is then not flattered by a roof measured while another process held a core.
  largest() { cat "$raw/$1"-roof* | awk -v k="$2" '$1 == k && $2 > m { m = $2 } END { print m }'; }
  for isa in avx2 native; do
    peak[$isa]=$(largest "$isa" fma_peak_gflops)
    bw[$isa]=$(largest "$isa" read_gbs)
  done
  cell_roof() {
    local f="$raw/$1-roof"
    local ahead
    ahead=$(fig "$f" read_ahead_floats)
    echo "$(fig "$f" isa)${ahead:+, long rows read $ahead floats ahead}, FMA peak $(cat "$raw/$1"-roof* | awk '$1 == "fma_peak_gflops" { printf "%s%s", n++ ? " / " : "", $2 }') GFLOP/s, read $(cat "$raw/$1"-roof* | awk '$1 == "read_gbs" { printf "%s%s", n++ ? " / " : "", $2 }') GB/s, in the order measured (the shares below are of the largest)"
  }
  row "in-run roof: vectors, read-ahead, FMA peak of every core, read bandwidth" "$(cell_roof avx2)" "$(cell_roof native)" "—"
  cell_gemm() {
    awk -v g="$(fig "$raw/$1-roof" sgemm_gflops)" -v p="${peak[$1]}" -v t="$(fig "$raw/$1-roof" sgemm_threads)" \
      'BEGIN { printf "%.1f GFLOP/s, %.0f%% of peak (%d threads)", g, 100 * g / p, t }'
  }
  row "Eigen SGEMM 2048³ (multi-threaded)" "$(cell_gemm avx2)" "$(cell_gemm native)" "—"
  for d in 64 128; do
    for mask in full causal; do
      kind=v2; [[ $mask == causal ]] && kind=v2c
      cells=()
      for isa in avx2 native; do
        ms=$(best_of "$kind" "$isa" "$d")
        cells+=("$(awk -v ms="$ms" -v d="$d" -v c="$mask" -v p="${peak[$isa]}" 'BEGIN {
          f = (c == "causal") ? 2.0 * 4096 * 4097 * d : 4.0 * 4096 * 4096 * d; g = f / ms / 1e6
          printf "%.2f ms, %.1f GFLOP/s, **%.0f%%** of peak", ms, g, 100 * g / p }')")
      done
      row "FA-2 share of FMA peak, d = $d, $mask" "${cells[0]}" "${cells[1]}" "≥ 60%"
    done
  done
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do
      IFS='|' read -r rr ma mb lo <<<"$(range ggml v2 "$isa" "$d")"
      cells+=("$rr (ggml $ma ms, FA-2 $mb ms) $(verdict "$lo" 1.15)")
    done
    row "ggml / FA-2, d = $d (ggml built for the same ISA)" "${cells[0]}" "${cells[1]}" "≥ 1.15×"
  done
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do cells+=("$(turns_cell v1 v2 "$isa" "$d" 1.0 FA-1 FA-2)"); done
    row "FA-1 / FA-2, d = $d" "${cells[0]}" "${cells[1]}" "≥ 1×"
  done
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do cells+=("$(turns_cell v2 v2c "$isa" "$d" 1.85 full causal)"); done
    row "causal speed-up of FA-2 (full / causal), d = $d" "${cells[0]}" "${cells[1]}" "≥ 1.85×"
  done
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do
      cells+=("$(awk '$1 == "ms" { v = $2; if (n == 0 || v < lo) lo = v; if (n == 0 || v > hi) hi = v; n++ }
        END { s = 100 * (hi / lo - 1); v = (s <= 10) ? "**met**" : "**not met**"; printf "%.1f%% (%.2f–%.2f ms) %s", s, lo, hi, v }' \
        "$raw/$isa-spread-$d")")
    done
    row "spread of 10 repeats of FA-2 (worst / best − 1), d = $d" "${cells[0]}" "${cells[1]}" "≤ 10%"
  done
  # control_spread FILE: the spread of a control's repeats, as FA-2's spread is taken.
  control_spread() {
    if [[ -f $1 ]]; then
      awk '$1 == "ms" { v = $2; if (n == 0 || v < lo) lo = v; if (n == 0 || v > hi) hi = v; n++ }
        END { printf "%.1f%% (%.2f–%.2f ms)", 100 * (hi / lo - 1), lo, hi }' "$1"
    else
      echo "not measured in this run"
    fi
  }
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do cells+=("$(control_spread "$raw/$isa-steady-$d")"); done
    row "the cores' own spread, right after: 10 repeats of the FMA peak's register-only loop on every core, each as long as FA-2's best, d = $d" "${cells[0]}" "${cells[1]}" "—"
  done
  for d in 64 128; do
    cells=()
    for isa in avx2 native; do cells+=("$(control_spread "$raw/$isa-steady-read-$d")"); done
    row "the shared cache's own spread, then: 10 repeats of every core reading a buffer the size of K and V ($((2 * 4096 * d / 262144)) MiB) over and over, each as long as FA-2's best, d = $d" "${cells[0]}" "${cells[1]}" "—"
  done
  cells=()
  cells2=()
  for isa in avx2 native; do
    f="$raw/$isa-softmax"
    cells+=("$(awk -v s="$(fig "$f" safe_ms)" -v o="$(fig "$f" online_ms)" 'BEGIN {
      q = s / o; v = (q >= 1.25) ? "**met**" : "**not met**"
      printf "%.2f× (safe %.2f ms, online %.2f ms) %s", q, s, o, v }')")
    cells2+=("$(awk -v o="$(fig "$f" online_ms)" -v t="$(fig "$f" traffic_ms)" -v e="$(fig "$f" exp_bound_ms)" -v bw="${bw[$isa]}" 'BEGIN {
      b = e; w = "exp"
      if (t > e) { b = t; w = "memory traffic" }
      v = (o <= 1.15 * b) ? "**met**" : "**not met**"
      p = 100 * (o / b - 1); a = sprintf("%.0f%% above the %s bound", p, w)
      if (p < 0.5) a = sprintf("at the %s bound", w)
      printf "online %.2f ms, traffic %.2f ms (%.1f GB/s of IO-model bytes; read roof %s GB/s), exp bound %.2f ms: %s %s",
        o, t, 3 * 4 * 67108864 / t / 1e6, bw, e, a, v }')")
  done
  row "online / safe softmax, 2^26 fp32" "${cells[0]}" "${cells[1]}" "≥ 1.25×"
  row "online softmax against its larger bound (traffic: a max pass, then a read and a streaming write; exp: online softmax's own rate on rows in L2, two exps per element)" "${cells2[0]}" "${cells2[1]}" "within 15%"
  cell_read_ahead() {  # from bench_isa read-ahead's lines "floats F online_ms M (range) ... online_vs_first R (range)"
    awk -v chosen="$(fig "$raw/$1-roof" read_ahead_floats)" '
      $1 == "floats" && !first { first = $2; t0 = $4; next }
      $1 == "floats" { printf "%s %s of the time at %s (online %s ms at %s floats ahead, %s at %s); the kernels read %s ahead here", $10, $11, first, $4, $2, t0, first, chosen }' "$raw/$1-read-ahead"
  }
  if [[ -f $raw/avx2-read-ahead && -f $raw/native-read-ahead ]]; then
    row "online softmax read further ahead: time per round against the nearer distance, median (range) of 8 rounds taking turns (\`bench_isa read-ahead\`)" "$(cell_read_ahead avx2)" "$(cell_read_ahead native)" "—"
  fi
  cell_exp() {  # from bench_exp's lines "variant NAME ns_per_vector T ratio R ulp U"
    awk -v floats="$(fig "$raw/$1-roof" vector_floats)" '$1 == "variant" {
        printf "%s%s %s ns (%s×, %s ulp)", n++ ? "; " : "", $2, $4, $6, $8 }
      END { if (n == 1) printf " a vector of %s floats; no table variants for this instruction set", floats
            else printf "; ns a vector of %s floats", floats }' "$raw/$1-exp"
  }
  if [[ -f $raw/avx2-exp && -f $raw/native-exp ]]; then
    row "the sums' exponential against table-driven ones (\`bench_exp 61\`: kernel = vexp_term; tableK: 2^(j/K) looked up in a register, degree 4; -corrected: the table's rounding corrected), best of 30 taking turns, and its largest error on [−87.33, 0]" "$(cell_exp avx2)" "$(cell_exp native)" "—"
  fi
} | tee "$work/isa-table.md"
echo "raw figures in $raw; whole run $(($(date +%s) - start)) s" >&2
