// Shared by every FlashStep compute shader; inserted after the #defines of the shader, and
// followed by mask.glsl (the attention mask).
//
// PREC selects the number format the engine emulates. The GPU computes in fp32; for fp16 and
// bf16 every operation is followed by R(), which rounds its float result to the format, exactly
// as the CPU engine's Eigen::half / Eigen::bfloat16 do. So exp(12) becomes inf in fp16 here
// too, and the overflow lesson looks the same on both backends.
#define PREC_FP32 0
#define PREC_FP16 1
#define PREC_BF16 2
#ifndef PREC
#define PREC PREC_FP32
#endif
#ifndef TRACE
#define TRACE 0
#endif
#ifndef SCALED
#define SCALED 0
#endif

#define kInf uintBitsToFloat(0x7F800000u)
#define kNaN uintBitsToFloat(0x7FC00000u)

// Where every running (m, l) and output accumulator starts: core's initial_state() (m = −∞,
// l = 0, O = 0), which the engine sets in every program it compiles (Kernels::program).
uniform float m_init;
uniform float l_init;
uniform float o_init;

// NaN and −∞ are tested on the bits: GLSL leaves NaN undefined, and a driver may fold
// isnan(x) to false or reorder a comparison with a NaN.
bool nan_bits(float x) {
  uint u = floatBitsToUint(x);
  return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0u;
}
bool neg_inf_bits(float x) { return floatBitsToUint(x) == 0xFF800000u; }
bool inf_bits(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) == 0x7F800000u; }

// Loops over the head dimension d run in blocks of kUnroll:
//   for (int k0 = 0; k0 < D; k0 += kUnroll) for (int kk = 0; kk < kUnroll; ++kk) { k = k0 + kk; ... }
// llvmpipe (Mesa's CPU driver, the tests' GPU) counts every loop iteration of an invocation
// against a cap of 65535 and quietly leaves its loops once the cap is reached; a loop with a
// constant count of at most 32 is unrolled and not counted. Every shader reports how much of its
// work it finished, and the engine refuses a result that stopped short.
#define kUnroll 32

// The extent of a tile along one side: min(B, left), B its rows or keys, `left` of them still to
// come. A loop over it runs at most B times, and a compiler that sees so may unroll it around the
// loops over d it holds. llvmpipe's does (B <= 32), and LLVM then took minutes on the result: 158 s
// for attn_tiled.comp at d = 64, Br = Bc = 16, 2.6 s without the unrolling. Where the engine sets
// ROLLED_TILES (a driver that caps loops, as llvmpipe does: gpu/gpu_engine.cpp), the bound is
// hidden behind a uniform that the engine sets to 0, so such loops stay loops; the result is the
// same. Elsewhere (a GPU's compiler, which keeps an unrolled tile's row in registers) it is min.
#ifndef ROLLED_TILES
#define ROLLED_TILES 0
#endif
#if ROLLED_TILES
uniform int kNoBound;
int tile_extent(int B, int left) { return min(B, left) + kNoBound; }
#else
int tile_extent(int B, int left) { return min(B, left); }
#endif

// x rounded to the nearest fp16 value (ties to even), as a float: subnormals in multiples of
// 2^-24, and inf from 65520 up, exactly as Eigen::half. Done on the bits: the GLSL spec does not
// say how packHalf2x16 rounds or overflows, and NVIDIA's driver neither rounds to nearest nor
// gives inf (it made [11, 11.5, 12] sum to 321344.56 instead of inf).
float round_fp16(float x) {
  uint u = floatBitsToUint(x);
  uint sign = u & 0x80000000u;
  uint a = u & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return x;  // inf and NaN stay as they are
  if (a >= 0x38800000u) {          // |x| >= 2^-14: a normal fp16 number, 10 mantissa bits
    a += 0xFFFu + ((a >> 13) & 1u);
    a &= 0xFFFFE000u;
    if (a >= 0x47800000u) a = 0x7F800000u;  // rounds to 65536 or more: inf
    return uintBitsToFloat(sign | a);
  }
  // A subnormal fp16 number: q * 2^-24 with q the nearest integer, ties to even.
  uint e = a >> 23;
  if (e < 102u) return uintBitsToFloat(sign);  // below 2^-25: ±0
  uint m = (a & 0x7FFFFFu) | 0x800000u;
  uint shift = 126u - e;  // 14 .. 24
  uint q = m >> shift;
  uint rem = m & ((1u << shift) - 1u);
  uint half_unit = 1u << (shift - 1u);
  if (rem > half_unit || (rem == half_unit && (q & 1u) != 0u)) q += 1u;
  return uintBitsToFloat(sign | floatBitsToUint(float(q) * uintBitsToFloat(0x33800000u)));
}

float R(float x) {
#if PREC == PREC_FP16
  return round_fp16(x);
#elif PREC == PREC_BF16
  // Round to nearest even on the float bits, keeping the top 16; NaN stays NaN.
  if (nan_bits(x)) return x;
  uint u = floatBitsToUint(x);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uintBitsToFloat(u & 0xFFFF0000u);
#else
  return x;
#endif
}

// The larger of a and b, NaN if either is, as numpy's maximum and the CPU engine's nan_max().
// GLSL's max() leaves NaN to the driver.
float max_of(float a, float b) {
  if (nan_bits(a) || nan_bits(b)) return kNaN;
  return a < b ? b : a;
}

// What exp(x − m) subtracts: m, or 0 while m is −∞ (nothing finite seen yet), so that a
// rescale exp(m_old − m) is exp(−∞) = 0 instead of exp(−∞ + ∞) = NaN: FlashAttention's guard,
// and the CPU engine's exp_base().
float exp_base(float m) { return neg_inf_bits(m) ? 0.0 : m; }

// exp(a - b) rounded, and exactly 0 when a = -inf: a masked score adds nothing, and an (m, l)
// that has seen nothing yet (m = -inf) needs no rescale, even when b is -inf too and
// exp(-inf + inf) would be NaN. The CPU engine's exp_diff() and p_of() do the same. A NaN in a
// or b gives NaN: exp(NaN) is not trusted to.
float exp_diff(float a, float b) {
  if (neg_inf_bits(a)) return 0.0;
  if (nan_bits(a) || nan_bits(b)) return kNaN;
  return R(exp(R(a - b)));
}

// exp(z) rounded, with NaN and −∞ decided on the bits (GLSL's exp leaves NaN undefined).
float exp_r(float z) {
  if (nan_bits(z)) return kNaN;
  if (neg_inf_bits(z)) return 0.0;
  return R(exp(z));
}

// y = e / l for a softmax output, with IEEE's answers where GLSL leaves division undefined:
// NaN for 0/0 (a row of only −∞), NaN in, ∞/∞ (naive overflow); 0 for a finite e over ∞.
float softmax_div(float e, float l) {
  if (nan_bits(e) || nan_bits(l) || l == 0.0) return kNaN;
  if (inf_bits(l)) return inf_bits(e) ? kNaN : 0.0;
  return R(e / l);
}

// m + log l, the log-sum-exp: −∞ for l = 0 (log(0) is undefined in GLSL), NaN for NaN.
float lse_of(float m, float l) {
  if (nan_bits(m) || nan_bits(l)) return kNaN;
  if (l == 0.0) return -kInf;
  return R(m + R(log(l)));
}

// x / l for an attention output: 0 where l = 0, a row with no finite score (no probability
// mass), instead of 0/0.
float div_mass(float x, float l) { return l == 0.0 ? 0.0 : R(x / l); }
