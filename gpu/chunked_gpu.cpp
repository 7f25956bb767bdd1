// `chunked` on the GPU (shaders/softmax_chunked.comp): the K workers of the lesson are the
// invocations of one workgroup per row; their (m, l) pairs meet in shared memory and are merged
// up a tree, a barrier per level. The trace holds every worker's (m, l) after each of its
// elements and every node of the tree; core's ChunkedNarration turns its numbers into the Steps
// of core/softmax.cpp.
#include "gpu/softmax_run.h"

#include <algorithm>

namespace flashstep::gpu {

void gpu_chunked(Kernels& k, const Resolved& r, Recorder& rec) {
  ChunkedNarration say(r, rec);
  SoftmaxGpuRun g(k, r, rec);
  const int K = r.chunks, nodes = say.nodes(), longest = say.longest();

  const Buffer trace = g.trace_buffer(kTraceStride);
  const Buffer tree_trace = k.buffer("the merge-tree trace",
                                     rec.on() ? static_cast<std::size_t>(r.rows) * nodes * 8 : 0,
                                     nullptr, kTraceHint);
  Defines d = common_defines(r, rec.on());
  d.push_back({"K", std::to_string(K)});
  d.push_back({"NODES", std::to_string(nodes)});
  d.push_back({"LOCAL", std::to_string(std::min({K, 256, k.limits().max_invocations}))});
  const Program& p = k.program("softmax_chunked.comp", d);
  {
    GpuTimer::Scope timing(k.timer());
    g.set_uniforms(p);
    g.X.bind(0);
    g.stats.bind(1);
    g.Y.bind(2);
    trace.bind(3);
    tree_trace.bind(4);
    g.done.bind(5);
    dispatch(r.rows);
  }
  // Pass 1 and pass 3 each went through every element.
  g.check_done(2 * r.n, "use more --chunks, so each worker's chunk is shorter");
  const auto t = g.read(trace, kTraceStride);
  const auto tt = rec.on() ? tree_trace.read<float>(static_cast<std::size_t>(r.rows) * nodes * 2)
                           : std::vector<float>{};
  const auto y = g.Y.read<float>(g.cells), stats = g.stats.read<float>(r.rows * 4u);

  for (int row = 0; row < r.rows; ++row) {
    say.start_row(row);
    // Entry `field` (0: m, 1: l) of node `id`; 0 when the tree trace was not kept.
    auto node = [&](int id, int field) -> double {
      if (tt.empty() || id < 0) return 0.0;
      return tt[(static_cast<std::size_t>(row) * nodes + id) * 2 + field];
    };
    // 1. Every worker runs the online update over its own chunk; all advance in lockstep.
    for (int s = 0; s < longest; ++s) {
      Step st;
      for (int w = 0; w < K; ++w) {
        const int i = say.begin(w) + s;
        if (i >= say.begin(w + 1)) continue;
        const TraceEntry e = g.entry(t, row, i);
        say.worker(st, row, w, i, {e.z, 0, 0, e.m, e.l, 0, e.e});
      }
      say.commit_workers(st, row, s);
    }
    // 2. Merge pairs up the tree, as the shared-memory reduction did.
    for (int id = K; id < nodes; ++id) {
      const MergeNode& nd = say.node(id);
      say.merge(row, id, node(nd.left, 0), node(nd.left, 1), node(nd.right, 0), node(nd.right, 1),
                node(id, 0), node(id, 1));
    }
    const double m = stats[row * 4u], l = stats[row * 4u + 1];
    say.global(row, m, l);
    // 3. Every worker normalizes its chunk with the global (m, l).
    for (int s = 0; s < longest; ++s) {
      Step st;
      for (int w = 0; w < K; ++w) {
        const int i = say.begin(w) + s;
        if (i >= say.begin(w + 1)) continue;
        const TraceEntry e = g.entry(t, row, i);
        say.normalize_element(st, row, i, e.z, m, l, e.f, y[g.at(row, i, 1)]);
      }
      say.commit_normalized(st, row, s);
    }
    say.finish_row(row, m, l);
  }
}

namespace {

// The workers' (m, l) merge tree lives in shared memory.
std::string chunked_refuses(const Resolved& r, const Limits& lim, int) {
  const long long bytes = 2LL * merge_tree_nodes(r.chunks) * 4;
  if (bytes > lim.max_shared_bytes)
    return strf("chunked on the GPU keeps the (m, l) merge tree of %d workers in shared "
                "memory: %lld bytes, more than this GPU's %lld; use fewer --chunks",
                r.chunks, bytes, lim.max_shared_bytes);
  return "";
}

BigBuffer chunked_trace(const Resolved& r, bool keep_steps) {
  return trace_buffer_of(keep_steps, static_cast<double>(r.rows) * r.n * kTraceStrideBytes, "the step trace");
}

// Each worker walks its own chunk of at least n / n_w elements.
long long worker_chunk(const Resolved& r) { return r.n / std::max(r.chunks, 1); }

void record_chunked(Kernels& k, const Resolved& r, const HeadRecorders& heads) { gpu_chunked(k, r, *heads.front()); }

}  // namespace

std::vector<GpuRow> chunked_gpu_rows() {
  return {{Algorithm::chunked, record_chunked, chunked_trace, worker_chunk,
           "use more --chunks, so each worker's chunk is shorter", chunked_refuses}};
}

}  // namespace flashstep::gpu
