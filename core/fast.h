// Fast fp32 kernels: no steps recorded, vectorized with Eigen's packet math, multi-threaded
// with OpenMP. They compute what the recording engines compute (tests/core/test_fast.cpp
// checks both against long-double references) and are what `--steps none` and the
// benchmarks time.
//
// Softmax inputs are `rows` contiguous rows of length n, row-major. Attention inputs are
// N × d row-major; O is N × d; lse (optional) gets m + log l per row.
#pragma once

#include "core/mask.h"
#include "core/matrix.h"
#include "core/tiles.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep::fast {

// Each kernel can also return the final m and l of every row (m_out, l_out: `rows` floats).

// Three passes over x: max, sum of exp(x - m), normalize.
void softmax_safe(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out = nullptr,
                  float* l_out = nullptr);
// Two passes: (m, l) together, then normalize. The first pass folds x into (m, l) one
// L1-sized block at a time: block max, then one exp per element, so x is read from memory once.
void softmax_online(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out = nullptr,
                    float* l_out = nullptr);
// Online (m, l) of K chunks, merged pairwise up a tree, then normalize.
void softmax_chunked(const float* x, float* y, std::int64_t rows, std::int64_t n, int K,
                     float* m_out = nullptr, float* l_out = nullptr);

// S = scale·QKᵀ and P = softmax(S) materialized (N × N each), O = PV: Eigen SGEMMs, all cores.
void attention_naive(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, MatRM<float>& O, float* m_out = nullptr, float* l_out = nullptr);
// What the FlashAttention-2 kernel does to be fast. Each can be turned off, to measure what it
// brings (bench_cpu's ablation, in BENCHMARKS.md); the results are the same either way, up to
// rounding. Runs use the defaults.
struct TiledOptions {
  bool vector_exp = true;     // exp by the kernels' vector exp (off: std::exp score by score)
  bool fused_exp_sum = true;  // a tile row's exponentials and their sum in one sweep (off: two)
  bool lazy_rescale = true;   // l_i and the O_i row rescaled only when the row max moved (off: always)
  // S = Q_i K_jᵀ and O_i += P~_ij V_j by register-blocked micro-kernels that read Q_i and P~_ij in
  // place and repack only K_j (off: Eigen's GEMM, which packs all four). Where d is not a
  // multiple of the vector width, Eigen's GEMM either way.
  bool micro_kernels = true;
  // Which thread takes which Q block. `dynamic`: whichever thread is free takes the next,
  // costliest first (under the causal mask block i costs i + 1 tiles), so the cheap ones even
  // out the end, and a thread the system delays holds up nobody. `snake`: a static deal in
  // rounds of one per thread, forwards then backwards, from the costliest, which balances the
  // mask's costs as well but waits for a delayed thread (repeats spread about 1.5 times as wide
  // on a shared 2-core machine). `contiguous`: each thread one run of neighbouring blocks,
  // unbalanced under the mask.
  enum class Schedule { dynamic, snake, contiguous } schedule = Schedule::dynamic;
};

// The Q block of Tr that thread t of T takes in round `round` under Schedule::snake, or −1 for
// none. Rounds run from the last block, the costliest under the mask, so the leftover partial
// round deals out the cheapest.
int snake_block(int round, int t, int T, int Tr);

// FlashAttention-2 order: Q blocks in parallel, K/V blocks inner, O divided by l once.
void attention_tiled_v2(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                        const Mask& mask, int Br, int Bc, MatRM<float>& O, std::vector<float>* lse = nullptr,
                        float* m_out = nullptr, float* l_out = nullptr, const TiledOptions& options = {});
// FlashAttention-1 order: K/V blocks outer, Q blocks inner (in parallel), m, l, O in memory.
void attention_tiled(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, int Br, int Bc, MatRM<float>& O, float* m_out = nullptr,
                     float* l_out = nullptr);

// y_i = exp(x_i) by the vector exp every kernel here takes its exponentials with (within 1 ulp
// over fp32's range with FMA, 1.26 without; exp(−∞) = 0 exactly): what the tests check on each
// instruction set.
void vector_exp(const float* x, float* y, std::int64_t n);
// y_i = exp(x_i) for x_i ≤ 0 as the kernels' sums of exponentials take it: vector_exp's value for
// x_i ≥ −87.33, and from 0 to about 1.2·10⁻³⁸ below (−∞ included), which no sum that holds an
// exp(0) = 1 can tell from 0 (fewer than 2¹⁰² terms); fewer operations without AVX-512. NaN stays NaN.
void vector_exp_term(const float* x, float* y, std::int64_t n);
// y_i = s·exp(x_i) for x_i ≤ 0 and 2⁻⁷⁵ ≤ s ≤ 1, as softmax's output pass (s = 1/l) and the score
// tiles (s = 1) take it: with s = 1, vector_exp's value bit for bit; otherwise within 1.5 ulp
// with FMA, 2 without (vector_exp's bound and the product's rounding); subnormal results rounded
// once; exp(−∞) = 0; NaN stays NaN. Fewer operations than vector_exp and a product by s.
void vector_exp_scaled(const float* x, float* y, std::int64_t n, float s);

// How far ahead of their loop the kernels that stream a long row from memory ask for it
// (software prefetch, one request per 64-byte line), in each of the kReadStreams streams below,
// in floats. The hardware's own prefetcher alone left online softmax's passes over a row of 2^25
// floats, read as one stream, at 21 and 22 ms on one core of the Intel Xeon (model 207) of
// BENCHMARKS.md; asked for 2048 floats ahead, 14 and 16 ms (1024 to 8192 alike). Read as four
// streams, the distance that is fastest depends on the CPU, so it is chosen for the CPU the
// kernels run on when they first ask (read_ahead_floats_for), not at build time. Online softmax's
// passes over 2^26 floats on two cores (BENCHMARKS.md: the model-167 Xeon's first table, "Reading
// long rows 128 floats ahead" and "Reading ahead 128, 512 or 2048 floats on this Xeon"):
// - on the AMD EPYC (Zen 4, 32 KiB of L1), AVX2 build, the median of 25 rounds' ratios to 2048
//   floats ahead: first pass 0.89–0.91 asking 1024 to 256 floats ahead, 0.87–0.91 asking nothing,
//   0.79–0.83 at 32 to 128 (11.5–12.7 ms → 9.3–10.5); second pass 0.92–1.03, 0.92 and 0.88. The
//   native build alike: 128.
// - on the Intel Xeon of model 167 (48 KiB of L1), the first pass 10.6–11.1 ms at 128 floats
//   ahead, 9.7–10.0 at 512, 10.1–10.6 at 2048 (AVX2 build); the whole of online softmax, per round
//   of 16 (bench_isa read-ahead), 0.95–0.97 of 128's time at 256 to 1024 on both builds and
//   0.97–1.00 at 2048. On the Xeon of model 207, 0.94 at 512 with AVX-512 and 1.03 with AVX2, on a
//   machine whose pace swung 2× in the run: 512 on Intel's.
inline constexpr std::int64_t kReadAheadIntel = 512, kReadAheadOther = 128;
// The distance for a CPU whose cpuid vendor string is `vendor` ("GenuineIntel", "AuthenticAMD"):
// kReadAheadIntel for Intel's, kReadAheadOther for any other (and for "", no cpuid).
std::int64_t read_ahead_floats_for(std::string_view vendor);
// This CPU's cpuid vendor string, "" where the CPU has no cpuid (not x86).
std::string cpu_vendor();
// The distance the kernels use: read_ahead_floats_for(cpu_vendor()) unless a benchmark set another.
std::int64_t read_ahead_floats();
// Sets the distance the kernels use from now on, for a benchmark that compares distances: a whole
// number of cache lines (a multiple of 16 floats) from 16 to 8192; anything else throws
// std::invalid_argument naming the value, and the distance stays as it was.
void set_read_ahead_floats(std::int64_t floats);
// How many streams the kernels read a long row in memory as: its parts [s·h, (s + 1)·h) (h a
// whole number of vectors), a vector of each in turn, the few floats past the last part after
// them. One core keeps more of the row's reads in flight so: online softmax's first pass over 2^26
// floats on the two cores of BENCHMARKS.md's Xeon (AVX-512), 9.5–12.0 ms as one stream, 8.2–9.1
// as two, 7.3–8.0 as four, where reading it alone takes 7.2–8.5; its second pass 12.7–13.8 ms as
// one, 11.1–12.5 as two or four. The benchmarks' memory roofs read the same way.
inline constexpr std::int64_t kReadStreams = 4;
// Floats in a 64-byte cache line: what one read-ahead asks for, and what the output pass of a long
// row writes whole, store after store (core/fast_softmax.cpp).
inline constexpr std::int64_t kLineFloats = 16;
// The length h of each of those parts in a row of n floats, for vectors of `vector` floats: a
// whole number of vectors, and for a part of more than two pages, 48 floats (192 bytes) short of a
// whole number of 4 KiB pages, so that the parts' vectors read and written together lie at
// different offsets in their pages. At equal offsets a load waits on the store to another part
// just before it (4K aliasing) and the parts' lines meet in the same L1 set: on the Xeon of
// BENCHMARKS.md (AVX2 build, a row of 2^25 floats a core, page-aligned input and output) the
// second pass took 16.2–17.7 ms with parts of whole pages, 13.3–14.2 with the skew.
constexpr std::int64_t stream_part_length(std::int64_t n, std::int64_t vector) {
  constexpr std::int64_t page = 4096 / sizeof(float), skew = 48;
  const std::int64_t q = n / kReadStreams;
  return q >= 2 * page ? q / page * page - skew : q / vector * vector;
}

int threads();  // how many threads the kernels use
// Floats in one vector of the instruction set the kernels were compiled for: 4 (SSE2), 8 (AVX2),
// 16 (AVX-512). The build chooses it (FLASHSTEP_NATIVE: this machine's widest); the register
// blocking of the attention kernels follows it (core/fast_attention.cpp).
int vector_floats();

// Keeps every kernel thread busy for `seconds`. A CPU that has idled runs its first 0.2 s or so
// of work slower, while its clock (or a virtual machine's share of the host) comes up: repeats
// of attn-tiled-v2 at N = 4096 took 35–75% longer there than after it. Timed runs start with
// this, so their repeats measure the kernel and not the wake-up.
void warm_up(double seconds);
inline constexpr double kWarmUpSeconds = 0.3;  // the slow start measured lasted about 0.2 s

// The Q and K/V block sizes the tiled kernels are fastest with on this machine, for a run that
// did not ask for any (`run --steps none` and the Measure lab): the lessons' Br and Bc come from a
// GPU's shared memory M and are small for a CPU, where each tile is two small GEMMs whose fixed
// costs then dominate. Bc = 128 and Br = the tile's kernel_rows (the forward's 256, measured
// fastest: BENCHMARKS.md; the backward's 128), each halved while a thread's tile step (the row's TileShape, core/tiles.h: the forward's Q_i, O_i, K_j, V_j and
// S_ij; the backward's K_j, V_j, dK_j, dV_j, Q_i, dO_i, dQ_i and four score tiles) would not fit
// in half of the L2 cache, Br also while there are fewer Q blocks than threads; both capped at N.
struct KernelBlocks {
  int Br = 0, Bc = 0;
  std::int64_t tile_bytes = 0;  // a thread's tile step at these sizes
  std::int64_t l2_bytes = 0;    // the L2 cache they were fitted to (512 KiB when unknown)
};
KernelBlocks kernel_blocks(int N, int d, const TileShape& tile = kForwardTile);

}  // namespace flashstep::fast
