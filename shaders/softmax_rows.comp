#version 430
// The sequential pass of naive, safe, online and logsumexp softmax: one invocation per row,
// walking the row in order as the pseudocode does (the parallel split of a row is the lesson of
// `chunked`). MODE picks the pass:
//   MODE_SUM_NAIVE  l_i = l_(i-1) + exp(x_i)                                   (naive, pass 1)
//   MODE_MAX        m_i = max(m_(i-1), x_i)                                    (safe, pass 1)
//   MODE_SUM_SAFE   l_i = l_(i-1) + exp(x_i - m)                               (safe, pass 2)
//   MODE_ONLINE     m_i, l_i = l_(i-1) exp(m_(i-1) - m_i) + exp(x_i - m_i)     (online, pass 1)
// One dispatch walks elements [first, last) of every row; a long row takes several dispatches,
// its running (m, l) waiting in `stats` in between (which keeps each invocation far below
// llvmpipe's loop cap, see common.glsl).
// X is (rows, n) row-major; stats is (rows, 4): m, l, LSE, unused; done (rows) counts the
// elements each row has been through; trace is (rows, n, 5): z (the scaled x_i), e, m_i, l_i,
// the rescale factor, after element i.
#define MODE_SUM_NAIVE 0
#define MODE_MAX 1
#define MODE_SUM_SAFE 2
#define MODE_ONLINE 3
#ifndef WITH_LSE
#define WITH_LSE 0
#endif

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer XBuf { float X[]; };
layout(std430, binding = 1) buffer StatsBuf { float stats[]; };
layout(std430, binding = 2) writeonly buffer TraceBuf { float trace[]; };
layout(std430, binding = 3) buffer DoneBuf { int done[]; };
uniform int rows;
uniform int n;
uniform float s;
uniform int first;
uniform int last;

float load(int row, int i) {
  float z = X[row * n + i];
#if SCALED
  z = R(z * s);
#endif
  return z;
}

void put(int row, int i, float z, float e, float m, float l, float f) {
#if TRACE
  uint t = (uint(row) * uint(n) + uint(i)) * 5u;
  trace[t] = z;
  trace[t + 1u] = e;
  trace[t + 2u] = m;
  trace[t + 3u] = l;
  trace[t + 4u] = f;
#endif
}

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int row = int(gl_GlobalInvocationID.x); row < rows; row += stride) {
    // The running values where the previous dispatch left them, or their starting values.
#if MODE == MODE_SUM_SAFE
    float m = stats[row * 4];  // the max of pass 1
#else
    float m = first == 0 ? m_init : stats[row * 4];
#endif
    float l = first == 0 ? l_init : stats[row * 4 + 1];
    int count = 0;
    for (int i = first; i < last; ++i, ++count) {
      float z = load(row, i);
#if MODE == MODE_SUM_NAIVE
      // No max subtracted: a large x_i overflows exp() and l becomes inf.
      float e = exp_r(z);
      l = R(l + e);
      put(row, i, z, e, 0.0, l, 0.0);
#elif MODE == MODE_MAX
      m = max_of(m, z);
      put(row, i, z, 0.0, m, 0.0, 0.0);
#elif MODE == MODE_SUM_SAFE
      // Every term exp(x_i - m) is at most 1, so l cannot overflow.
      float e = exp_diff(z, m);
      l = R(l + e);
      put(row, i, z, e, m, l, 0.0);
#else
      // The old sum is rescaled by exp(m_old - m_new) whenever the max grows.
      float m_new = max_of(m, z);
      float f = exp_diff(m, m_new);
      float e = exp_diff(z, m_new);
      l = R(R(l * f) + e);
      m = m_new;
      put(row, i, z, e, m, l, f);
#endif
    }
#if MODE != MODE_SUM_SAFE
    stats[row * 4] = m;
#endif
    stats[row * 4 + 1] = l;
#if WITH_LSE
    if (last == n) stats[row * 4 + 2] = lse_of(m, l);
#endif
    done[row] += count;
  }
}
