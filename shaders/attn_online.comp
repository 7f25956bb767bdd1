#version 430
// attn-online: one invocation per query row i, streaming over the keys with the running max m,
// the running sum l and the unnormalized output o in registers; o and l are rescaled by
// exp(m_old - m_new) whenever the max grows, and o is divided by l once at the end. The grid is
// (N / 64, heads): head h = gl_WorkGroupID.y.
// Q, K, V, O are (heads, N, D) row-major; stats is (heads, N, 4): m, l, keys visited, unused;
// trace is (N, N, D + 5): s, m, l, rescale factor, exp(s - m), o after key j (one head).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) writeonly buffer OBuf { float O[]; };
layout(std430, binding = 4) writeonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 5) writeonly buffer TraceBuf { float trace[]; };
uniform int N;
uniform float s;

// A driver that ends long loops (llvmpipe) can stop any of them, and every later one after its
// first iteration: the keys visited count only if every kUnroll-block of every dot product and
// update ran, else the row reports -1 and the engine refuses it.
const int kDBlocks = (D + kUnroll - 1) / kUnroll;

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  uint head = gl_WorkGroupID.y * uint(N);  // this head's first row
  for (int i = int(gl_GlobalInvocationID.x); i < N; i += stride) {
    uint qi = (head + uint(i)) * uint(D);
    float q[D];
    float o[D];
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int k = k0 + kk;
        if (k < D) {
          q[k] = Q[qi + uint(k)];
          o[k] = o_init;
        }
      }
    float m = m_init;
    float l = l_init;
    // The keys the mask lets row i see: one run, every key of it visible.
    int keys = 0, blocks = 0;
    for (int j = key_begin(i); j < key_end(i, N); ++j, ++keys) {
      uint kj = (head + uint(j)) * uint(D);
      float sc = 0.0;
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) sc = R(sc + R(q[k] * K[kj + uint(k)]));
        }
#if SCALED
      sc = R(sc * s);
#endif
      float m_new = max_of(m, sc);
      float f = exp_diff(m, exp_base(m_new));
      float e = exp_diff(sc, exp_base(m_new));
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) o[k] = R(R(o[k] * f) + R(e * V[kj + uint(k)]));
        }
      l = R(R(l * f) + e);
      m = m_new;
#if TRACE
      uint t = (uint(i) * uint(N) + uint(j)) * uint(D + 5);
      trace[t] = sc;
      trace[t + 1u] = m;
      trace[t + 2u] = l;
      trace[t + 3u] = f;
      trace[t + 4u] = e;
      for (int k0 = 0; k0 < D; k0 += kUnroll)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) trace[t + 5u + uint(k)] = o[k];
        }
#endif
    }
    // The only division, once per row.
    int written = 0;
    for (int k0 = 0; k0 < D; k0 += kUnroll, ++written)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int k = k0 + kk;
        if (k < D) O[qi + uint(k)] = div_mass(o[k], l);
      }
    uint st = (head + uint(i)) * 4u;
    stats[st] = m;
    stats[st + 1u] = l;
    stats[st + 2u] = blocks == 2 * keys * kDBlocks && written == kDBlocks ? float(keys) : -1.0;
  }
}
