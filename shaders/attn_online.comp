#version 430
// attn-online: one invocation per query row i, streaming over the keys with the running max m,
// the running sum l and the unnormalized output o in registers; o and l are rescaled by
// exp(m_old - m_new) whenever the max grows, and o is divided by l once at the end.
// Q, K, V, O are (N, D) row-major; stats is (N, 4): m, l, keys visited, unused;
// trace is (N, N, D + 5): s, m, l, rescale factor, exp(s - m), o after key j.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) writeonly buffer OBuf { float O[]; };
layout(std430, binding = 4) writeonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 5) writeonly buffer TraceBuf { float trace[]; };
uniform int N;
uniform float s;

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < N; i += stride) {
    float q[D];
    float o[D];
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int k = k0 + kk;
        if (k < D) {
          q[k] = Q[i * D + k];
          o[k] = 0.0;
        }
      }
    float m = -kInf;
    float l = 0.0;
#if CAUSAL
    int last = i;
#else
    int last = N - 1;
#endif
    int keys = 0;
    for (int j = 0; j <= last; ++j, ++keys) {
      float sc = 0.0;
      for (int k0 = 0; k0 < D; k0 += kUnroll)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) sc = R(sc + R(q[k] * K[j * D + k]));
        }
#if SCALED
      sc = R(sc * s);
#endif
      float m_new = max_of(m, sc);
      float f = exp_diff(m, exp_base(m_new));
      float e = exp_diff(sc, exp_base(m_new));
      for (int k0 = 0; k0 < D; k0 += kUnroll)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) o[k] = R(R(o[k] * f) + R(e * V[j * D + k]));
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
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int k = k0 + kk;
        if (k < D) O[i * D + k] = div_mass(o[k], l);
      }
    stats[i * 4] = m;
    stats[i * 4 + 1] = l;
    stats[i * 4 + 2] = float(keys);
  }
}
