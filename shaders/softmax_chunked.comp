#version 430
// `chunked`: the row is split among K workers, the invocations of one workgroup. Each runs the
// online update over its own chunk, leaves its (m, l) in shared memory, and the workgroup merges
// the pairs up a tree (neighbours pairwise, an odd one carried up, the order of merge_tree() in
// core/engine.h) with a barrier between levels: the all-reduce of the lesson. Then every worker
// normalizes its chunk with the root (m, l).
// Defines: K workers, NODES = size of the merge tree, LOCAL invocations per workgroup (a worker
// count above LOCAL is shared out: invocation t runs workers t, t + LOCAL, ...).
// X and Y are (rows, n); stats (rows, 4): m, l; trace (rows, n, 5): z, e, m_k, l_k after the
// element, e of the normalize pass; tree (rows, NODES, 2): m, l of every node; done (rows)
// counts the elements passes 1 and 3 went through (2n when the shader ran to the end).
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) readonly buffer XBuf { float X[]; };
layout(std430, binding = 1) writeonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 2) writeonly buffer YBuf { float Y[]; };
layout(std430, binding = 3) writeonly buffer TraceBuf { float trace[]; };
layout(std430, binding = 4) writeonly buffer TreeBuf { float tree[]; };
layout(std430, binding = 5) buffer DoneBuf { int done[]; };
uniform int rows;
uniform int n;
uniform float s;

shared float tm[NODES];
shared float tl[NODES];

// Worker w owns [begin(w), begin(w + 1)) = [w n / K, (w + 1) n / K), written so w n cannot
// overflow.
int begin(int w) { return w * (n / K) + (w * (n % K)) / K; }

float load(int row, int i) {
  float z = X[row * n + i];
#if SCALED
  z = R(z * s);
#endif
  return z;
}

void main() {
  int lid = int(gl_LocalInvocationID.x);
  for (int row = int(gl_WorkGroupID.x); row < rows; row += int(gl_NumWorkGroups.x)) {
    // 1. Every worker: online (m, l) of its chunk.
    for (int w = lid; w < K; w += LOCAL) {
      float m = m_init;
      float l = l_init;
      int count = 0;
      for (int i = begin(w); i < begin(w + 1); ++i, ++count) {
        float z = load(row, i);
        float m_new = max_of(m, z);
        float f = exp_diff(m, m_new);
        float e = exp_diff(z, m_new);
        l = R(R(l * f) + e);
        m = m_new;
#if TRACE
        uint t = (uint(row) * uint(n) + uint(i)) * 5u;
        trace[t] = z;
        trace[t + 1u] = e;
        trace[t + 2u] = m;
        trace[t + 3u] = l;
#endif
      }
      tm[w] = m;
      tl[w] = l;
      atomicAdd(done[row], count);
    }
    memoryBarrierShared();
    barrier();

    // 2. Merge up the tree, one level per barrier.
    int level_start = 0;
    int level_size = K;
    while (level_size > 1) {
      int next_start = level_start + level_size;
      int next_size = (level_size + 1) / 2;
      for (int a = lid; a < next_size; a += LOCAL) {
        int left = level_start + 2 * a;
        int id = next_start + a;
        if (2 * a + 1 < level_size) {
          float ma = tm[left], la = tl[left], mb = tm[left + 1], lb = tl[left + 1];
          float m = max_of(ma, mb);
          float fa = exp_diff(ma, m);
          float fb = exp_diff(mb, m);
          tm[id] = m;
          tl[id] = R(R(la * fa) + R(lb * fb));
        } else {
          tm[id] = tm[left];
          tl[id] = tl[left];
        }
      }
      memoryBarrierShared();
      barrier();
      level_start = next_start;
      level_size = next_size;
    }
    float m = tm[NODES - 1];
    float l = tl[NODES - 1];
#if TRACE
    for (int id = lid; id < NODES; id += LOCAL) {
      tree[(row * NODES + id) * 2] = tm[id];
      tree[(row * NODES + id) * 2 + 1] = tl[id];
    }
#endif
    if (lid == 0) {
      stats[row * 4] = m;
      stats[row * 4 + 1] = l;
    }

    // 3. Every worker normalizes its chunk with the global (m, l).
    for (int w = lid; w < K; w += LOCAL) {
      int count = 0;
      for (int i = begin(w); i < begin(w + 1); ++i, ++count) {
        float e = exp_diff(load(row, i), m);
        Y[row * n + i] = softmax_div(e, l);
#if TRACE
        trace[(uint(row) * uint(n) + uint(i)) * 5u + 4u] = e;
#endif
      }
      atomicAdd(done[row], count);
    }
    // The next row reuses tm and tl.
    barrier();
  }
}
