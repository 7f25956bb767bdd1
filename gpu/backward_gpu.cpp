// attn-backward (the standard backward: shaders/attn_bwd_matmul.comp and attn_bwd_d.comp after
// attn-naive's forward) and attn-flash-backward (FlashAttention-2's backward:
// shaders/attn_bwd_d.comp, attn_flash_bwd_kv.comp and attn_flash_bwd_dq.comp after
// attn_tiled_v2.comp's forward) on the GPU. The forward runs first in the same recording, as the
// CPU engines run it; core's backward narration turns the shaders' numbers into the Steps of
// core/attn_backward.cpp.
#include "gpu/backward_run.h"

#include "core/heads.h"
#include "core/narration_backward.h"

#include <algorithm>

namespace flashstep::gpu {

// ---- the recorders ----------------------------------------------------------------------------

namespace {

// Each batch's dO, (count, N, d) floats: head 0's from r, the others' drawn from their seeds.
std::vector<std::vector<float>> dO_batches(AttnGpuRun& a) {
  std::vector<std::vector<float>> out;
  for (const auto& b : a.batches) {
    std::vector<float> dO;
    for (int h = b.h0; h < b.h0 + b.count; ++h)
      AttnGpuRun::append(dO, h == 0 ? to_floats(a.r.d_o) : a.k.head_floats(a.r, h).d_o);
    // The shaders read N × d of every head: a shorter dO would be read past its end.
    if (dO.size() != AttnGpuRun::cells(b.count, AttnGpuRun::cells(a.N, a.d)))
      throw GpuError(strf("dO holds %zu values for %d heads of %d × %d", dO.size(), b.count, a.N, a.d));
    out.push_back(std::move(dO));
  }
  return out;
}

// Where head h sits: its batch and its first row in the batch's buffers.
struct HeadAt {
  std::size_t batch;
  std::size_t row0;
};
HeadAt head_at(const AttnGpuRun& a, int h) {
  const std::size_t bi = static_cast<std::size_t>(h / a.per_batch);
  return {bi, AttnGpuRun::cells(h - a.batches[bi].h0, a.N)};
}

}  // namespace

// The standard backward, in the CPU engine's order: attn-naive's forward, then dV row by row,
// dP, D (both ways), dS, dQ and dK; P, dP and dS whole in HBM.
void gpu_attn_backward(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  const int N = r.n, d = r.d;
  const std::size_t NN = AttnGpuRun::cells(N, N);
  AttnGpuRun a(k, r, heads, static_cast<double>(std::max(NN, AttnGpuRun::cells(N, d))) * 4);
  NaiveForward forward(a);
  NaiveBackward backward(a, forward, dO_batches(a));
  a.dispatches_total = (NaiveForward::kDispatchesPerBatch + NaiveBackward::kDispatchesPerBatch) *
                       static_cast<long long>(a.batches.size());
  {
    GpuTimer::Scope timing(k.timer());
    forward.dispatch();
    backward.dispatch();
  }
  forward.read_back();
  backward.read_back();
  for (int h = 0; h < a.H; ++h) {
    forward.narrate(h);
    const HeadAt at = head_at(a, h);
    const GradBuffers& g = backward.grads(at.batch);
    const auto grad_row = [&](const std::vector<float>& G, int row) {
      return AttnGpuRun::view(G, (at.row0 + static_cast<std::size_t>(row)) * d, 1, d, d);
    };
    const auto nn_row = [&](const std::vector<float>& M, int i) { return a.view(M, AttnGpuRun::cells(i, N), 1, N, N); };
    AttnBackwardNarration say(r, *heads[static_cast<std::size_t>(h)]);
    for (int j = 0; j < N; ++j) say.dv_row(j, grad_row(g.dV_host, j));
    for (int i = 0; i < N; ++i) say.dp_row(i, nn_row(backward.dP_host(), i));
    for (int i = 0; i < N; ++i) {
      const std::size_t row = at.row0 + static_cast<std::size_t>(i);
      say.d_row(i, g.D_host[row * 2], g.D_host[row * 2 + 1]);
    }
    for (int i = 0; i < N; ++i) say.ds_row(i, nn_row(backward.dS_host(), i));
    for (int i = 0; i < N; ++i) say.dq_row(i, grad_row(g.dQ_host, i));
    for (int j = 0; j < N; ++j) say.dk_row(j, grad_row(g.dK_host, j));
    say.finish();
  }
}

// FlashAttention-2's backward, in the paper's loop order (the CPU engine's): FlashAttention-2's
// forward, D block by block, then K/V blocks outer and Q blocks inner. The GPU ran the K/V
// blocks in parallel and dQ in a pass of its own; its traces hold every tile's numbers, which
// are handed to the narration tile by tile as the paper's loops reach them. A tile the GPU did
// not run has no step.
void gpu_attn_flash_backward(Kernels& k, const Resolved& r, const HeadRecorders& heads) {
  const int N = r.n, d = r.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  AttnGpuRun a(k, r, heads, static_cast<double>(N) * std::max(d, 4) * 4);
  TiledV2Forward forward(a);
  FlashBackward backward(a, forward, dO_batches(a));
  a.dispatches_total = (TiledV2Forward::kDispatchesPerBatch + FlashBackward::kDispatchesPerBatch) *
                       static_cast<long long>(a.batches.size());
  {
    GpuTimer::Scope timing(k.timer());
    forward.dispatch();
    backward.dispatch();
  }
  forward.read_back();
  backward.read_back();
  const FlashBackward::Traces& t = backward.traces();
  for (int h = 0; h < a.H; ++h) {
    forward.narrate(h);
    const HeadAt at = head_at(a, h);
    const GradBuffers& g = backward.grads(at.batch);
    const int hb = h - a.batches[at.batch].h0;  // the head within its batch
    const bool steps = heads[static_cast<std::size_t>(h)]->on();
    // Rows [r0, r0 + n) of a final gradient (n × d).
    const auto final_rows = [&](const std::vector<float>& G, int r0, int n) {
      return AttnGpuRun::view(G, (at.row0 + static_cast<std::size_t>(r0)) * d, n, d, d);
    };
    AttnFlashBackwardNarration say(r, *heads[static_cast<std::size_t>(h)]);
    // Line 1: D = rowsum(dO ∘ O), block by block.
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      say.d_block(i, AttnGpuRun::view(g.D_host, (at.row0 + static_cast<std::size_t>(r0)) * 2, br, 1, 2));
    }
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      say.start_kv(j);
      for (int i = 0; i < Tr; ++i) {
        const int r0 = i * Br, br = std::min(Br, N - r0);
        if (!backward.ran(at.batch, hb, i, j)) continue;  // fully masked: the workgroup skipped it
        const auto nn = [&](const std::vector<float>& M) {
          return AttnGpuRun::view(M, AttnGpuRun::cells(r0, N) + static_cast<std::size_t>(c0), br, bc, N);
        };
        // dQ_i after the tile (from the dQ pass, whose j runs in the same ascending order);
        // without steps only the final dQ_i, which the results need.
        const BlockView dQ = steps ? AttnGpuRun::view(t.dQ, (AttnGpuRun::cells(j, N) + r0) * d, br, d, d)
                                   : final_rows(g.dQ_host, r0, br);
        say.tile(i, j, nn(t.S), nn(t.P), nn(t.dP), nn(t.dS), dQ,
                 a.view(t.dK, (AttnGpuRun::cells(i, N) + c0) * d, bc, d, d),
                 a.view(t.dV, (AttnGpuRun::cells(i, N) + c0) * d, bc, d, d));
      }
      say.finish_kv(j, final_rows(g.dK_host, c0, bc), final_rows(g.dV_host, c0, bc));
    }
    say.finish();
  }
}

namespace {

// attn-backward keeps the forward's S and P and its own dP and dS of every head in GPU memory.
std::string backward_refuses(const Resolved& r, const Limits& lim, int heads) {
  const double memory = memory_bound(lim);
  const double need = 4.0 * heads * static_cast<double>(r.n) * r.n * 4;
  if (memory <= 0 || need <= memory) return "";
  return strf("attn-backward keeps S, P, dP and dS of every head in GPU memory: 4·H·N² floats = 4·%d·%d²·4 B = "
              "%s, more than this GPU's %s%s; use attn-flash-backward (no N×N matrix)",
              heads, r.n, s_and_p_text(need).c_str(), bytes_text(memory).c_str(),
              lim.memory_bytes > 0 ? "" : " (the driver does not say: this machine's memory)");
}

BigBuffer backward_p(const Resolved& r, bool) {
  const double N = r.n;
  return {N * N * 4, "P (N x N floats)",
          "attn-backward keeps P, dP and dS whole (the N^2 memory the lesson is about); use a smaller N or "
          "attn-flash-backward"};
}

// The forward's (attn-naive: a softmax row, 3N) and the backward's (a matmul over N, D's two
// loops over N): the forward's is the longest.
long long backward_loops(const Resolved& r) {
  return std::max(gpu_row(Algorithm::attn_naive)->least_loop_iterations(r), 2LL * r.n);
}

// The forward's shared memory and workgroup (FlashAttention-2's: K_j, V_j with Br invocations,
// as the dQ pass has them), then the dK, dV pass's: Q_i, dO_i with Bc invocations.
std::string flash_backward_refuses(const Resolved& r, const Limits& lim, int heads) {
  if (std::string why = gpu_row(Algorithm::attn_tiled_v2)->refuses(r, lim, heads); !why.empty()) return why;
  const long long bytes = 2LL * r.Br * r.d * 4;
  if (bytes > lim.max_shared_bytes)
    return strf("the Qᵢ and dOᵢ tiles (2 × Br × d = 2 × %d × %d floats, %lld bytes) do not fit in this GPU's "
                "shared memory (%lld bytes); use a smaller --block-rows or --sram",
                r.Br, r.d, bytes, lim.max_shared_bytes);
  const int most = std::min(lim.max_invocations, lim.max_group_size_x);
  if (r.Bc > most)
    return strf("Bc = %d key rows need one invocation each in a workgroup of the dK, dV pass, and this GPU "
                "allows %d; use a smaller --block-cols",
                r.Bc, most);
  return "";
}

// The largest trace: the forward's, the N × N ones of S, P, dP, dS, or dK, dV (Tr × N × d) and
// dQ (Tc × N × d).
BigBuffer flash_backward_traces(const Resolved& r, bool keep_steps) {
  const double N = r.n, d = r.d;
  BigBuffer big = gpu_row(Algorithm::attn_tiled_v2)->largest_buffer(r, keep_steps);
  for (const BigBuffer& b : {trace_buffer_of(keep_steps, N * N * 4, "the dS trace (N x N floats)"),
                             trace_buffer_of(keep_steps, r.Tr * N * d * 4, "the dK trace (Tr x N x d floats)"),
                             trace_buffer_of(keep_steps, r.Tc * N * d * 4, "the dQ trace (Tc x N x d floats)")})
    if (b.bytes > big.bytes) big = b;
  return big;
}

// The forward's, or a key row's in the dK, dV pass (per Q block: its loads and rows) or a query
// row's in the dQ pass (per K/V block: its loads and keys), whichever is longest.
long long flash_backward_loops(const Resolved& r) {
  long long kv = 1, q = 1;
  for (long long r0 = 0; r0 < r.n; r0 += r.Br) {
    const long long br = std::min<long long>(r.Br, r.n - r0);
    kv += 1 + (br * r.d + r.Bc - 1) / r.Bc + br;
  }
  for (long long c0 = 0; c0 < r.n; c0 += r.Bc) {
    const long long bc = std::min<long long>(r.Bc, r.n - c0);
    q += 1 + (bc * r.d + r.Br - 1) / r.Br + bc;
  }
  return std::max({gpu_row(Algorithm::attn_tiled_v2)->least_loop_iterations(r), kv, q});
}

}  // namespace

std::vector<GpuRow> backward_gpu_rows() {
  return {
      {Algorithm::attn_backward, gpu_attn_backward, backward_p, backward_loops, "use a smaller N", backward_refuses},
      {Algorithm::attn_flash_backward, gpu_attn_flash_backward, flash_backward_traces, flash_backward_loops,
       "use a smaller N", flash_backward_refuses},
  };
}

}  // namespace flashstep::gpu
