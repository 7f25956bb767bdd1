// Shared by every FlashStep compute shader; inserted after the #defines of the shader.
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
#ifndef CAUSAL
#define CAUSAL 0
#endif

#define kInf uintBitsToFloat(0x7F800000u)

// Loops over the head dimension d run in blocks of kUnroll:
//   for (int k0 = 0; k0 < D; k0 += kUnroll) for (int kk = 0; kk < kUnroll; ++kk) { k = k0 + kk; ... }
// llvmpipe (Mesa's CPU driver, the tests' GPU) counts every loop iteration of an invocation
// against a cap of 65535 and quietly leaves its loops once the cap is reached; a loop with a
// constant count of at most 32 is unrolled and not counted. Every shader reports how much of its
// work it finished, and the engine refuses a result that stopped short.
#define kUnroll 32

float R(float x) {
#if PREC == PREC_FP16
  // packHalf2x16 rounds to nearest even and overflows to inf, like Eigen::half.
  return unpackHalf2x16(packHalf2x16(vec2(x, 0.0))).x;
#elif PREC == PREC_BF16
  // Round to nearest even on the float bits, keeping the top 16; NaN stays NaN.
  if (isnan(x)) return x;
  uint u = floatBitsToUint(x);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uintBitsToFloat(u & 0xFFFF0000u);
#else
  return x;
#endif
}

// std::max(a, b) as the CPU engine uses it: (a < b) ? b : a, so a NaN in b is passed over and a
// NaN in a is kept. GLSL's max() leaves NaN handling to the driver.
float max_of(float a, float b) { return a < b ? b : a; }

// exp(a - b) rounded, and exactly 0 when a = -inf: a masked score adds nothing, and an (m, l)
// that has seen nothing yet (m = -inf) needs no rescale, even when b is -inf too and
// exp(-inf + inf) would be NaN. The CPU engine's exp_diff() and p_of() do the same.
float exp_diff(float a, float b) {
  if (isinf(a) && a < 0.0) return 0.0;
  return R(exp(R(a - b)));
}
