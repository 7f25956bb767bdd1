// `chunked` on the GPU (shaders/softmax_chunked.comp): the K workers of the lesson are the
// invocations of one workgroup per row; their (m, l) pairs meet in shared memory and are merged
// up a tree, a barrier per level. The trace holds every worker's (m, l) after each of its
// elements and every node of the tree; this file turns it into the Steps of core/softmax.cpp.
#include "gpu/softmax_run.h"

#include <algorithm>

namespace flashstep::gpu {

void gpu_chunked(Kernels& k, const Resolved& r, Recorder& rec) {
  SoftmaxGpuRun g(k, r, rec, /*with_m=*/true);
  const int K = r.chunks;
  const auto tree = merge_tree(K);
  const int nodes = static_cast<int>(tree.size());
  const int btm = rec.add_buffer({"m_tree", r.rows, nodes, Space::sram,
                                  "(m) of each worker (first K) and of each merge, in shared memory"});
  const int btl = rec.add_buffer({"l_tree", r.rows, nodes, Space::sram,
                                  "(l) of each worker (first K) and of each merge, in shared memory"});
  rec.recording().pass_names = {"each worker: online (m, l) of its chunk", "merge (m, l) pairs",
                                "normalize"};

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

  // Worker w owns [begin(w), begin(w+1)): sizes differ by at most one, none is empty.
  auto begin = [&](int w) { return static_cast<int>(static_cast<long long>(w) * r.n / K); };
  const int longest = begin(1) - begin(0) + (r.n % K ? 1 : 0);
  for (int row = 0; row < r.rows; ++row) {
    for (int w = 0; w < nodes; ++w) {
      rec.init(btm, row, w, -kInf);
      rec.init(btl, row, w, 0.0);
    }
    auto node_m = [&](int id) -> double { return tt[(static_cast<std::size_t>(row) * nodes + id) * 2]; };
    auto node_l = [&](int id) -> double { return tt[(static_cast<std::size_t>(row) * nodes + id) * 2 + 1]; };
    // 1. Every worker runs the online update over its own chunk; all advance in lockstep.
    for (int s = 0; s < longest; ++s) {
      Step st;
      st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
      for (int w = 0; w < K; ++w) {
        const int i = begin(w) + s;
        if (i >= begin(w + 1)) continue;
        g.load_io();
        rec.io().flops += 5;
        rec.io().exps += 2;
        rec.io().sram_writes += 2;
        if (!rec.on()) continue;
        const float* e = &t[g.at(row, i, kTraceStride)];
        const double z = e[0], ex = e[1], m = e[2], l = e[3];
        rec.write(g.be, row, i, ex);
        rec.write(btm, row, w, m);
        rec.write(btl, row, w, l);
        if (st.text.size() < 400)
          st.text += strf("%sworker %d reads %s = %s: (m, l) = (%s, %s)", st.text.empty() ? "" : "; ",
                          w + 1, g.x_name(i).c_str(), num(z).c_str(), num(m).c_str(), num(l).c_str());
        st.reads.push_back(g.cell(g.bx, row, i));
        st.writes.push_back(g.cell(btm, row, w));
        st.writes.push_back(g.cell(btl, row, w));
      }
      if (rec.on()) {
        st.label = g.prefix(row) + strf("element %d of each chunk", s + 1);
        st.text = g.prefix(row) + st.text;
        rec.commit(std::move(st));
      }
    }
    // 2. Merge pairs up the tree, as the shared-memory reduction did.
    for (int id = K; id < nodes; ++id) {
      const MergeNode& nd = tree[id];
      if (nd.right < 0) {
        rec.io().sram_reads += 2;
        rec.io().sram_writes += 2;
      } else {
        rec.io().sram_reads += 4;
        rec.io().sram_writes += 2;
        rec.io().flops += 6;
        rec.io().exps += 2;
      }
      if (!rec.on()) continue;
      rec.write(btm, row, id, node_m(id));
      rec.write(btl, row, id, node_l(id));
      Step st;
      st.pass = 2, st.line = 5, st.line_end = 6, st.row = row;
      st.label = g.prefix(row) + strf("merge level %d, node %d", nd.level, nd.index + 1);
      if (nd.right < 0) {
        st.text = strf("(m, l) = (%s, %s) has no partner on this level and moves up unchanged",
                       num(node_m(id)).c_str(), num(node_l(id)).c_str());
        st.reads = {g.cell(btm, row, nd.left), g.cell(btl, row, nd.left)};
      } else {
        const double ma = node_m(nd.left), mb = node_m(nd.right), m = node_m(id);
        st.text = strf("m = max(%s, %s) = %s;  l = %s * exp(%s - %s) + %s * exp(%s - %s) = %s",
                       num(ma).c_str(), num(mb).c_str(), num(m).c_str(), num(node_l(nd.left)).c_str(),
                       num(ma).c_str(), num(m).c_str(), num(node_l(nd.right)).c_str(), num(mb).c_str(),
                       num(m).c_str(), num(node_l(id)).c_str());
        st.reads = {g.cell(btm, row, nd.left), g.cell(btl, row, nd.left),
                    g.cell(btm, row, nd.right), g.cell(btl, row, nd.right)};
      }
      st.text = g.prefix(row) + st.text;
      st.writes = {g.cell(btm, row, id), g.cell(btl, row, id)};
      if (id == nodes - 1) {
        rec.write(g.bm, row, 0, node_m(id));
        rec.write(g.bl, row, 0, node_l(id));
        st.writes.push_back(g.reg(g.bm, row));
        st.writes.push_back(g.reg(g.bl, row));
        st.text += ": the global (m, l)";
      }
      rec.commit(std::move(st));
    }
    const double m = stats[row * 4u], l = stats[row * 4u + 1];
    if (K == 1 && rec.on()) {  // a single worker's (m, l) is already the global one
      rec.write(g.bm, row, 0, m);
      rec.write(g.bl, row, 0, l);
    }
    // 3. Every worker normalizes its chunk with the global (m, l).
    rec.io().sram_reads += 2 * static_cast<std::uint64_t>(K);
    for (int s = 0; s < longest; ++s) {
      Step st;
      st.pass = 3, st.line = 8, st.row = row;
      for (int w = 0; w < K; ++w) {
        const int i = begin(w) + s;
        if (i >= begin(w + 1)) continue;
        g.load_io();
        rec.io().exps += 1;
        rec.io().flops += 2;
        const double yi = y[g.at(row, i, 1)];
        g.store(row, i, yi);
        if (!rec.on()) continue;
        const float* e = &t[g.at(row, i, kTraceStride)];
        rec.write(g.be, row, i, e[4]);
        if (st.text.size() < 400)
          st.text += strf("%sy%s = exp(%s - %s) / %s = %s", st.text.empty() ? "" : "; ",
                          sub(i + 1).c_str(), num(e[0]).c_str(), num(m).c_str(), num(l).c_str(),
                          num(yi).c_str());
        st.reads.push_back(g.cell(g.bx, row, i));
        st.writes.push_back(g.cell(g.by, row, i));
      }
      if (rec.on()) {
        st.label = g.prefix(row) + strf("normalize element %d of each chunk", s + 1);
        st.text = g.prefix(row) + st.text;
        st.reads.push_back(g.reg(g.bm, row));
        st.reads.push_back(g.reg(g.bl, row));
        rec.commit(std::move(st));
      }
    }
    g.finish_row(row, m, l);
  }
}

}  // namespace flashstep::gpu
