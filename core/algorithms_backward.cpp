// The algorithm table's backward rows (core/algorithms.h): each runs its forward first in the
// same recording, so its pseudocode starts with the forward's lines and its passes follow the
// forward's (`runs_after`).
#include "core/algorithms.h"

#include "core/engine.h"
#include "core/io_model.h"
#include "core/timed_run.h"

namespace flashstep {

void add_backward_rows(std::vector<AlgorithmInfo>& t) {
  auto forward_lines = [&t](Algorithm f, std::vector<std::string> own) {
    std::vector<std::string> out = t.at(static_cast<std::size_t>(f)).pseudocode;
    out.insert(out.end(), own.begin(), own.end());
    return out;
  };
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_backward;
    a.id = "attn-backward";
    a.title = "Standard attention backward";
    a.short_name = "standard backward";
    a.family = Family::backward;
    a.view = ViewKind::matrix;
    a.inputs = {&kInputQ, &kInputK, &kInputV, &kInputDO};
    a.takes_mask = true;
    a.group = "attention backward";
    // The forward's S is freed when its kernels are done; the backward then holds P (the
    // forward's, read back), dP and dS at once: 3 N² values.
    a.square = {"P", "dP", "dS"};
    a.window_max_n = kWindowMaxN;
    a.runs_after = Algorithm::attn_naive;
    a.passes = {"backward: dV = Pᵀ dO", "backward: dP = dO Vᵀ", "backward: D", "backward: dS", "backward: dQ",
                "backward: dK"};
    a.record = record_attn_backward;
    a.io = io_attn_backward;
    a.size = size_attn_backward;
    a.fast = fast_attn_backward;
    a.gpu = true;
    a.pseudocode = forward_lines(Algorithm::attn_naive, {
        "Load P, dO by blocks from HBM, compute dV = Pᵀ dO, write dV to HBM",
        "Load dO, V by blocks from HBM, compute dP = dO Vᵀ, write dP to HBM",
        "Load dO, O from HBM, compute D_{i} = rowsum(dO_{i} ∘ O_{i}), write D to HBM   # = rowsum(P_{i} ∘ dP_{i})",
        "Read P, dP, D from HBM, compute dS = P ∘ (dP − D), write dS to HBM",
        "Load dS, K by blocks from HBM, compute dQ = s · dS K, write dQ to HBM",
        "Load dS, Q by blocks from HBM, compute dK = s · dSᵀ Q, write dK to HBM",
        "Return dQ, dK, dV",
    });
    a.compare_a = Algorithm::attn_backward, a.compare_b = Algorithm::attn_flash_backward;
    t.push_back(std::move(a));
  }
  {
    AlgorithmInfo a{};
    a.algorithm = Algorithm::attn_flash_backward;
    a.id = "attn-flash-backward";
    a.title = "FlashAttention-2 backward";
    a.short_name = "FlashAttention-2 backward";
    a.family = Family::backward;
    a.view = ViewKind::matrix;
    a.takes_blocks = true;
    a.inputs = {&kInputQ, &kInputK, &kInputV, &kInputDO};
    a.takes_mask = true;
    a.group = "attention backward";
    a.tile = kFlashBackwardTile;
    a.window_max_n = kWindowMaxN;
    a.stores_lse = true;
    a.runs_after = Algorithm::attn_tiled_v2;
    a.passes = {"backward: D = rowsum(dO ∘ O)", "backward: K/V block j = "};
    a.passes_per = PassesPer::kv_block;
    a.record = record_attn_flash_backward;
    a.io = io_attn_flash_backward;
    a.size = size_attn_flash_backward;
    a.fast = fast_attn_flash_backward;
    a.gpu = true;
    a.pseudocode = forward_lines(Algorithm::attn_tiled_v2, {
        "Compute D = rowsum(dO ∘ O) (N × 1), write D to HBM in T_{r} blocks D_{i}",
        "for 1 ≤ j ≤ T_{c} do",
        "    Load K_{j}, V_{j} from HBM to on-chip SRAM",
        "    Initialize dK_{j} = (0)_{Bc×d}, dV_{j} = (0)_{Bc×d} on chip",
        "    for 1 ≤ i ≤ T_{r} do",
        "        Load Q_{i}, dO_{i}, dQ_{i}, L_{i}, D_{i} from HBM to on-chip SRAM",
        "        On chip, compute S_{ij} = Q_{i} K_{j}ᵀ · s  (B_{r} × B_{c})",
        "        On chip, compute P_{ij} = exp(S_{ij} − L_{i})      # from L alone: no m, no l",
        "        On chip, dV_{j} ← dV_{j} + P_{ij}ᵀ dO_{i}  (B_{c} × d)",
        "        On chip, compute dP_{ij} = dO_{i} V_{j}ᵀ  (B_{r} × B_{c})",
        "        On chip, compute dS_{ij} = P_{ij} ∘ (dP_{ij} − D_{i})",
        "        dQ_{i} ← dQ_{i} + s · dS_{ij} K_{j}, written back to HBM   # FlashAttention-2's GPU kernel: an atomic add",
        "        On chip, dK_{j} ← dK_{j} + s · dS_{ij}ᵀ Q_{i}  (B_{c} × d)",
        "    end for",
        "    Write dK_{j}, dV_{j} to HBM",
        "end for",
        "Return dQ, dK, dV",
    });
    a.compare_a = Algorithm::attn_backward, a.compare_b = Algorithm::attn_flash_backward;
    t.push_back(std::move(a));
  }
}

}  // namespace flashstep
