#include "core/narration_backward.h"

#include "core/algorithms.h"
#include "core/attention_buffers.h"
#include "core/markup.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace flashstep {
namespace {

using u64 = std::uint64_t;
using namespace attention_buffers;

int forward_buffer(const Recording& rec, const char* name) {
  const int b = rec.find_buffer(name);
  if (b < 0) throw std::logic_error(std::string("backward narration: the forward declared no ") + name);
  return b;
}

Region rows_of(int b, int r0, int nr, int cols) { return {b, r0, 0, r0 + nr, cols}; }

// "[0.1, 0.2, 0.3, 0.4, …]": the first entries of row r of M.
std::string list(const BlockView& M, int r = 0, int max_items = 4) {
  std::string out = "[";
  for (int k = 0; k < M.cols() && k < max_items; ++k) out += (k ? ", " : "") + num(M(r, k));
  if (M.cols() > max_items) out += ", …";
  return out + "]";
}

// "S_{21}": tile (i, j), 0-based in, 1-based out; "S_{10,3}" once an index has two digits.
std::string tile_name(const char* M, int i, int j) {
  return strf("%s_{%d%s%d}", M, i + 1, i >= 9 || j >= 9 ? "," : "", j + 1);
}

bool is_neg_inf(double x) { return std::isinf(x) && x < 0; }

}  // namespace

// ---- what both share -------------------------------------------------------------------------

AttnBackwardBase::AttnBackwardBase(const Resolved& r, Recorder& rec)
    : r_(r), rec_(rec), N(r.n), d(r.d), scaled_(r.scale != 1.0) {
  Recording& out = rec.recording();
  forward_passes_ = own_pass_offset(r);
  forward_lines_ = own_line_offset(r.scenario.algorithm);
  bQ_ = forward_buffer(out, "Q");
  bK_ = forward_buffer(out, "K");
  bV_ = forward_buffer(out, "V");
  bO_ = forward_buffer(out, "O");
  bdO_ = rec.add_buffer(query_grad({"dO", N, d, Space::hbm, "dO = ∂ℓ/∂O, the upstream gradient the backward starts from"},
                                   kOrderDO, {"dO" + strf(" (%d×%d): upstream gradient", N, d), "dO"}));
  rec.init(bdO_, r.d_o);
  bdQ_ = rec.add_buffer(query_grad({"dQ", N, d, Space::hbm, "dQ = ∂ℓ/∂Q, in HBM"}, kOrderDQ,
                                   {"dQ" + strf(" (%d×%d)", N, d), "dQ"}));
  bdV_ = rec.add_buffer(key_grad({"dV", N, d, Space::hbm, "dV = ∂ℓ/∂V = Pᵀ dO, one row per key"}, kOrderDV, "P",
                                 {"dVᵀ" + strf(" (%d×%d): dV on its side", d, N), "dVᵀ"})
                            .labelled("dV"));
  bD_ = rec.add_buffer(per_row({"D", N, 1, Space::hbm, "Dᵢ = rowsum(dOᵢ ∘ Oᵢ) = rowsum(Pᵢ ∘ dPᵢ), in HBM"}, 3));
  // The results every mode fills: the gradients and D.
  out.results.matrix("dq", "grads") = MatrixRM::Zero(N, d);
  out.results.matrix("dk", "grads") = MatrixRM::Zero(N, d);
  out.results.matrix("dv", "grads") = MatrixRM::Zero(N, d);
  out.results.row("D").assign(static_cast<std::size_t>(N), 0.0);
}

void AttnBackwardBase::results(const BlockView& dQ, const BlockView& dK, const BlockView& dV, const BlockView& D) {
  set_grad("dq", 0, dQ);
  set_grad("dk", 0, dK);
  set_grad("dv", 0, dV);
  std::vector<double>& Dv = rec_.recording().results.row("D");
  for (int i = 0; i < D.rows(); ++i) Dv[static_cast<std::size_t>(i)] = D(i, 0);
}

void AttnBackwardBase::write_block(int b, int r0, int c0, const BlockView& M) {
  if (!rec_.on()) return;
  for (int a = 0; a < M.rows(); ++a)
    for (int c = 0; c < M.cols(); ++c) rec_.write(b, r0 + a, c0 + c, M(a, c));
}

void AttnBackwardBase::set_grad(const char* name, int r0, const BlockView& M) {
  MatrixRM& g = rec_.recording().results.matrix(name, "grads");
  for (int a = 0; a < M.rows(); ++a)
    for (int c = 0; c < M.cols(); ++c) g(r0 + a, c) = M(a, c);
}

// ---- attn-backward ---------------------------------------------------------------------------

AttnBackwardNarration::AttnBackwardNarration(const Resolved& r, Recorder& rec) : AttnBackwardBase(r, rec) {
  bP_ = forward_buffer(rec.recording(), "P");
  bdP_ = rec.add_buffer(score_grad({"dP", N, N, Space::hbm, "dP = dO Vᵀ, materialized in HBM"}, kOrderDP,
                                   {"dP = dO Vᵀ, in HBM", "dP = dO Vᵀ", "dP"}));
  bdS_ = rec.add_buffer(score_grad({"dS", N, N, Space::hbm, "dS = P ∘ (dP − D), materialized in HBM"}, kOrderDS,
                                   {"dS = P ∘ (dP − D), in HBM", "dS", "dS"}));
  bdK_ = rec.add_buffer(key_grad({"dK", N, d, Space::hbm, "dK = ∂ℓ/∂K = s · dSᵀ Q, one row per key"}, kOrderDK, "dS",
                                 {"dKᵀ" + strf(" (%d×%d): dK on its side", d, N), "dKᵀ"})
                            .labelled("dK"));
}

void AttnBackwardNarration::dv_row(int j, const BlockView& dV_row) {
  // Column j of P, and dO once, with the first row.
  auto& io = rec_.io();
  io.hbm_reads += static_cast<u64>(N) + (j == 0 ? static_cast<u64>(N) * d : 0);
  io.flops += 2ull * N * d;
  io.hbm_writes += d;
  set_grad("dv", j, dV_row);
  if (!rec_.on()) return;
  write_block(bdV_, j, 0, dV_row);
  Step st;
  st.pass = pass(1), st.line = line(1), st.row = -1;
  st.label = "dV row " + std::to_string(j + 1);
  const std::string J = sub(j + 1);
  st.text = strf("dV%s = Σᵢ Pᵢ%s dOᵢ = (column %d of P)ᵀ dO = %s, written to HBM", J.c_str(), J.c_str(), j + 1,
                 list(dV_row).c_str());
  st.reads = {{bP_, 0, j, N, j + 1}, rows_of(bdO_, 0, N, d)};
  st.writes = {rows_of(bdV_, j, 1, d)};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::dp_row(int i, const BlockView& dP_row) {
  // dO_i, and V once, with the first row.
  auto& io = rec_.io();
  io.hbm_reads += static_cast<u64>(d) + (i == 0 ? static_cast<u64>(N) * d : 0);
  io.flops += 2ull * N * d;
  io.hbm_writes += N;
  if (!rec_.on()) return;
  write_block(bdP_, i, 0, dP_row);
  Step st;
  st.pass = pass(2), st.line = line(2), st.row = i;
  st.label = "dP row " + std::to_string(i + 1);
  const std::string I = sub(i + 1);
  st.text = strf("dP%s = dO%s Vᵀ = %s, written to HBM", I.c_str(), I.c_str(), list(dP_row).c_str());
  st.reads = {rows_of(bdO_, i, 1, d), rows_of(bV_, 0, N, d)};
  st.writes = {rows_of(bdP_, i, 1, N)};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::d_row(int i, double D_from_O, double D_from_P) {
  auto& io = rec_.io();
  io.hbm_reads += 2ull * d;  // dO_i, O_i
  io.flops += 2ull * d;
  io.hbm_writes += 1;
  rec_.recording().results.row("D")[static_cast<std::size_t>(i)] = D_from_O;
  if (!rec_.on()) return;
  rec_.write(bD_, i, 0, D_from_O);
  Step st;
  st.pass = pass(3), st.line = line(3), st.row = i;
  st.label = "D" + sub(i + 1);
  // One wording whatever the last digits: whether they print equal is rounding, which differs
  // between backends, and the two backends tell the same story.
  const std::string I = sub(i + 1), a = num(D_from_O), b = num(D_from_P);
  st.text = strf("D%s = rowsum(dO%s ∘ O%s) = %s; beside it rowsum(P%s ∘ dP%s) = %s, the same number up to rounding: "
                 "Σⱼ P%sⱼ (dO%s · vⱼ) = dO%s · Σⱼ P%sⱼ vⱼ = dO%s · O%s",
                 I.c_str(), I.c_str(), I.c_str(), a.c_str(), I.c_str(), I.c_str(), b.c_str(), I.c_str(), I.c_str(),
                 I.c_str(), I.c_str(), I.c_str(), I.c_str());
  // The algorithm reads dOᵢ and Oᵢ; rowsum(Pᵢ ∘ dPᵢ) is shown beside D for the lesson, not counted.
  st.reads = {rows_of(bdO_, i, 1, d), rows_of(bO_, i, 1, d)};
  st.writes = {{bD_, i, 0, i + 1, 1}};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::ds_row(int i, const BlockView& dS_row) {
  auto& io = rec_.io();
  io.hbm_reads += 2ull * N + 1;  // P_i, dP_i, D_i
  io.flops += 2ull * N;
  io.hbm_writes += N;
  if (!rec_.on()) return;
  write_block(bdS_, i, 0, dS_row);
  Step st;
  st.pass = pass(4), st.line = line(4), st.row = i;
  st.label = "dS row " + std::to_string(i + 1);
  const std::string I = sub(i + 1);
  const double D = rec_.recording().results.row("D")[static_cast<std::size_t>(i)];
  st.text = strf("dS%s = P%s ∘ (dP%s − D%s) with D%s = %s: %s, written to HBM", I.c_str(), I.c_str(), I.c_str(),
                 I.c_str(), I.c_str(), num(D).c_str(), list(dS_row).c_str());
  st.reads = {rows_of(bP_, i, 1, N), rows_of(bdP_, i, 1, N), {bD_, i, 0, i + 1, 1}};
  st.writes = {rows_of(bdS_, i, 1, N)};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::dq_row(int i, const BlockView& dQ_row) {
  // dS_i, and K once, with the first row.
  auto& io = rec_.io();
  io.hbm_reads += static_cast<u64>(N) + (i == 0 ? static_cast<u64>(N) * d : 0);
  io.flops += 2ull * N * d + (scaled_ ? static_cast<u64>(d) : 0);
  io.hbm_writes += d;
  set_grad("dq", i, dQ_row);
  if (!rec_.on()) return;
  write_block(bdQ_, i, 0, dQ_row);
  Step st;
  st.pass = pass(5), st.line = line(5), st.row = i;
  st.label = "dQ row " + std::to_string(i + 1);
  const std::string I = sub(i + 1);
  st.text = strf("dQ%s = %sdS%s K = %s, written to HBM", I.c_str(), scaled_ ? (num(r_.scale) + " · ").c_str() : "",
                 I.c_str(), list(dQ_row).c_str());
  st.reads = {rows_of(bdS_, i, 1, N), rows_of(bK_, 0, N, d)};
  st.writes = {rows_of(bdQ_, i, 1, d)};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::dk_row(int j, const BlockView& dK_row) {
  // Column j of dS, and Q once, with the first row.
  auto& io = rec_.io();
  io.hbm_reads += static_cast<u64>(N) + (j == 0 ? static_cast<u64>(N) * d : 0);
  io.flops += 2ull * N * d + (scaled_ ? static_cast<u64>(d) : 0);
  io.hbm_writes += d;
  set_grad("dk", j, dK_row);
  if (!rec_.on()) return;
  write_block(bdK_, j, 0, dK_row);
  Step st;
  st.pass = pass(6), st.line = line(6), st.row = -1;
  st.label = "dK row " + std::to_string(j + 1);
  const std::string J = sub(j + 1);
  st.text = strf("dK%s = %sΣᵢ dSᵢ%s Qᵢ = %s(column %d of dS)ᵀ Q = %s, written to HBM", J.c_str(),
                 scaled_ ? (num(r_.scale) + " · ").c_str() : "", J.c_str(),
                 scaled_ ? (num(r_.scale) + " · ").c_str() : "", j + 1, list(dK_row).c_str());
  st.reads = {{bdS_, 0, j, N, j + 1}, rows_of(bQ_, 0, N, d)};
  st.writes = {rows_of(bdK_, j, 1, d)};
  rec_.commit(std::move(st));
}

void AttnBackwardNarration::finish() {}

// ---- attn-flash-backward ---------------------------------------------------------------------

AttnFlashBackwardNarration::AttnFlashBackwardNarration(const Resolved& r, Recorder& rec) : AttnBackwardBase(r, rec) {
  Recording& out = rec.recording();
  bL_ = forward_buffer(out, "LSE");
  bS_ = forward_buffer(out, "S");
  // S recomputed is the forward's S, number for number: the same tiles. P is not: the forward's
  // \~Pᵢⱼ = e^{Sᵢⱼ − mᵢ⁽ʲ⁾} is unnormalized, the backward's Pᵢⱼ = e^{Sᵢⱼ − Lᵢ} is softmax(S) itself,
  // so it is a matrix of its own, beside the forward's.
  out.buffers[static_cast<std::size_t>(bS_)].description =
      "Sᵢⱼ tiles as computed on chip by the forward, then recomputed by the backward (never in HBM)";
  bP_ = rec.add_buffer(scores({"P (from L)", N, N, Space::sram,
                               "the backward's Pᵢⱼ = e^{Sᵢⱼ − Lᵢ} tiles, recomputed on chip from L alone (never in HBM)"},
                              kOrderDP - 1, {"P = exp(S − L): recomputed one tile at a time", "P = exp(S − L)", "P"})
                           .shown_as("P")
                           .labelled("P from L"));
  // dVⱼ = Σᵢ Pᵢⱼᵀ dOᵢ sums the columns of this P: it stacks over it, not over the forward's \~P.
  out.buffers[static_cast<std::size_t>(bdV_)].host = "P (from L)";
  bdP_ = rec.add_buffer(score_grad({"dP", N, N, Space::sram, "dPᵢⱼ = dOᵢ Vⱼᵀ tiles, on chip (never in HBM)"}, kOrderDP,
                                   {"dP = dO Vᵀ: one tile on chip at a time", "dP = dO Vᵀ", "dP"}));
  bdS_ = rec.add_buffer(score_grad({"dS", N, N, Space::sram, "dSᵢⱼ = Pᵢⱼ ∘ (dPᵢⱼ − Dᵢ) tiles, on chip (never in HBM)"},
                                   kOrderDS, {"dS = P ∘ (dP − D): one tile on chip at a time", "dS", "dS"}));
  bdK_ = rec.add_buffer(key_grad({"dK", N, d, Space::hbm,
                                  "dKⱼ = s · Σᵢ dSᵢⱼᵀ Qᵢ, summed on chip over the Q blocks, then written to HBM"},
                                 kOrderDK, "dS", {"dKᵀ" + strf(" (%d×%d): dK on its side", d, N), "dKᵀ"})
                            .labelled("dK"));
  out.buffers[static_cast<std::size_t>(bdV_)].description =
      "dVⱼ = Σᵢ Pᵢⱼᵀ dOᵢ, summed on chip over the Q blocks, then written to HBM";
  // Algorithm 2, line 3: dQ = 0 in HBM.
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < d; ++c) rec.init(bdQ_, i, c, 0.0);
}

void AttnFlashBackwardNarration::d_block(int i, const BlockView& D) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  auto& io = rec_.io();
  io.hbm_reads += 2ull * br * d;  // dO_i, O_i
  io.flops += 2ull * br * d;
  io.hbm_writes += static_cast<u64>(br);
  std::vector<double>& Dv = rec_.recording().results.row("D");
  for (int a = 0; a < D.rows(); ++a) Dv[static_cast<std::size_t>(r0 + a)] = D(a, 0);
  if (!rec_.on()) return;
  write_block(bD_, r0, 0, D);
  Step st;
  st.pass = pass(1), st.line = line(1), st.tile_i = i;
  st.label = "D" + sub(i + 1);
  const std::string I = sub(i + 1);
  if (br > 1) {
    std::string all = "[";
    for (int a = 0; a < br && a < 4; ++a) all += (a ? ", " : "") + num(D(a, 0));
    st.text = strf("D%s = rowsum(dO%s ∘ O%s) for rows %d–%d = %s%s, written to HBM before the loops: the tiles "
                   "then need no O",
                   I.c_str(), I.c_str(), I.c_str(), r0 + 1, r0 + br, all.c_str(), br > 4 ? ", …]" : "]");
  } else {
    st.text = strf("D%s = rowsum(dO%s ∘ O%s) = %s, written to HBM before the loops: the tiles then need no O",
                   I.c_str(), I.c_str(), I.c_str(), num(D(0, 0)).c_str());
  }
  st.reads = {rows_of(bdO_, r0, br, d), rows_of(bO_, r0, br, d)};
  st.writes = {{bD_, r0, 0, r0 + br, 1}};
  rec_.commit(std::move(st));
}

void AttnFlashBackwardNarration::start_kv(int j) {
  const int c0 = j * r_.Bc, bc = std::min(r_.Bc, N - c0);
  auto& io = rec_.io();
  io.hbm_reads += 2ull * bc * d;   // K_j, V_j
  io.sram_writes += 4ull * bc * d;  // K_j, V_j, and dK_j = dV_j = 0
  tiles_in_kv_ = 0;
  if (!rec_.on()) return;
  for (int a = 0; a < bc; ++a)
    for (int c = 0; c < d; ++c) {
      rec_.write(bdK_, c0 + a, c, 0.0);
      rec_.write(bdV_, c0 + a, c, 0.0);
    }
}

void AttnFlashBackwardNarration::tile(int i, int j, const BlockView& S, const BlockView& P, const BlockView& dP,
                                      const BlockView& dS, const BlockView& dQ, const BlockView& dK,
                                      const BlockView& dV) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  const int c0 = j * r_.Bc, bc = std::min(r_.Bc, N - c0);
  const u64 ubr = static_cast<u64>(br), ubc = static_cast<u64>(bc), ud = static_cast<u64>(d);
  auto& io = rec_.io();
  // Q_i, dO_i, dQ_i, L_i, D_i from HBM.
  io.hbm_reads += 3 * ubr * ud + 2 * ubr;
  io.sram_writes += 3 * ubr * ud + 2 * ubr;
  // S_ij = Q_i K_jᵀ · s; P_ij = exp(S_ij − L_i): the extra matmul and the exps.
  io.flops += 2 * ubr * ubc * ud + (scaled_ ? ubr * ubc : 0) + ubr * ubc;
  io.exps += ubr * ubc;
  io.sram_reads += (ubr + ubc) * ud + ubr * ubc + ubr;
  io.sram_writes += 2 * ubr * ubc;
  // dV_j += P_ijᵀ dO_i; dP_ij = dO_i V_jᵀ; dS_ij = P_ij ∘ (dP_ij − D_i).
  io.flops += 2 * ubr * ubc * ud + ubc * ud + 2 * ubr * ubc * ud + 2 * ubr * ubc;
  io.sram_reads += (ubr * ubc + ubr * ud + ubc * ud) + (ubr * ud + ubc * ud) + (2 * ubr * ubc + ubr);
  io.sram_writes += ubc * ud + ubr * ubc + ubr * ubc;
  // dQ_i += s · dS_ij K_j, written back to HBM; dK_j += s · dS_ijᵀ Q_i on chip.
  io.flops += 2 * ubr * ubc * ud + (scaled_ ? ubr * ud : 0) + ubr * ud;
  io.flops += 2 * ubr * ubc * ud + (scaled_ ? ubc * ud : 0) + ubc * ud;
  io.sram_reads += (ubr * ubc + ubc * ud + ubr * ud) + (ubr * ubc + ubr * ud + ubc * ud);
  io.sram_writes += ubc * ud;
  io.hbm_writes += ubr * ud;
  set_grad("dq", r0, dQ);
  const bool first = tiles_in_kv_++ == 0;
  if (!rec_.on()) return;
  Step st;
  // The first tile of K/V block j also loads K_j, V_j and starts dK_j, dV_j (lines 3-4).
  st.pass = pass(j + 2), st.line = line(first ? 3 : 6), st.line_end = line(13), st.tile_i = i, st.tile_j = j;
  st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
  const std::string I = sub(i + 1), J = sub(j + 1), Sij = tile_name("S", i, j), Pij = tile_name("P", i, j);
  const std::string dPij = tile_name("dP", i, j), dSij = tile_name("dS", i, j);
  const std::string s_dot = scaled_ ? num(r_.scale) + " · " : "";
  const double L0 = rec_.recording().lse()[static_cast<std::size_t>(r0)];
  const double D0 = rec_.recording().results.row("D")[static_cast<std::size_t>(r0)];
  // Six parts, in the kernel's order: recompute S and P; dV; dP; dS; dQ; dK.
  write_block(bS_, r0, c0, S);
  write_block(bP_, r0, c0, P);
  const std::string loaded =
      (first ? strf("K%s, V%s loaded, dK%s = dV%s = 0 on chip; ", J.c_str(), J.c_str(), J.c_str(), J.c_str()) : "") +
      strf("Q%s, dO%s, dQ%s, L%s, D%s loaded; ", I.c_str(), I.c_str(), I.c_str(), I.c_str(), I.c_str());
  const std::string p_text =
      is_neg_inf(L0) ? strf("row %d has no finite score, so L = −∞ and its S are −∞: P = 0 there, not exp(−∞ + ∞), which is "
                            "undefined",
                            r0 + 1)
                     : strf("row %d: exp(S − %s) = %s", r0 + 1, num(L0).c_str(), list(P).c_str());
  rec_.end_part(st, line(first ? 3 : 6), line(8),
                loaded + strf("%s = Q%s K%sᵀ%s recomputed (%d×%d), and %s = exp(%s − L%s) from L alone, no m and "
                              "no l (the forward wrote no P to HBM): %s",
                              Sij.c_str(), I.c_str(), J.c_str(), scaled_ ? (" · " + num(r_.scale)).c_str() : "", br,
                              bc, Pij.c_str(), Sij.c_str(), I.c_str(), p_text.c_str()));
  write_block(bdV_, c0, 0, dV);
  rec_.end_part(st, line(9), line(9),
                strf("dV%s += %sᵀ dO%s on chip: key row %d of dV%s is now %s", J.c_str(), Pij.c_str(), I.c_str(),
                     c0 + 1, J.c_str(), list(dV).c_str()));
  write_block(bdP_, r0, c0, dP);
  rec_.end_part(st, line(10), line(10),
                strf("%s = dO%s V%sᵀ on chip: row %d is %s", dPij.c_str(), I.c_str(), J.c_str(), r0 + 1,
                     list(dP).c_str()));
  write_block(bdS_, r0, c0, dS);
  rec_.end_part(st, line(11), line(11),
                strf("%s = %s ∘ (%s − D%s), row %d with D = %s: %s", dSij.c_str(), Pij.c_str(), dPij.c_str(),
                     I.c_str(), r0 + 1, num(D0).c_str(), list(dS).c_str()));
  write_block(bdQ_, r0, 0, dQ);
  rec_.end_part(st, line(12), line(12),
                strf("dQ%s += %s%s K%s, read from HBM and written back at every tile (in FlashAttention-2's GPU "
                     "kernel, where the blocks j run at once, an atomic add): row %d of dQ%s is now %s",
                     I.c_str(), s_dot.c_str(), dSij.c_str(), J.c_str(), r0 + 1, I.c_str(), list(dQ).c_str()));
  write_block(bdK_, c0, 0, dK);
  rec_.end_part(st, line(13), line(13),
                strf("dK%s += %s%sᵀ Q%s on chip: key row %d of dK%s is now %s", J.c_str(), s_dot.c_str(),
                     dSij.c_str(), I.c_str(), c0 + 1, J.c_str(), list(dK).c_str()));
  st.text = strf("tile (i=%d, j=%d): %s recomputed from L alone; dV%s += %sᵀ dO%s; %s = dO%s V%sᵀ; %s = %s ∘ "
                 "(%s − D%s); dQ%s += %s%s K%s, read and written back to HBM; dK%s += %s%sᵀ Q%s",
                 i + 1, j + 1, Pij.c_str(), J.c_str(), Pij.c_str(), I.c_str(), dPij.c_str(), I.c_str(), J.c_str(),
                 dSij.c_str(), Pij.c_str(), dPij.c_str(), I.c_str(), I.c_str(), s_dot.c_str(), dSij.c_str(),
                 J.c_str(), J.c_str(), s_dot.c_str(), dSij.c_str(), I.c_str());
  st.reads = {rows_of(bK_, c0, bc, d), rows_of(bV_, c0, bc, d), rows_of(bQ_, r0, br, d),
              rows_of(bdO_, r0, br, d), rows_of(bdQ_, r0, br, d), {bL_, r0, 0, r0 + br, 1},
              {bD_, r0, 0, r0 + br, 1}};
  st.writes = {{bS_, r0, c0, r0 + br, c0 + bc}, {bP_, r0, c0, r0 + br, c0 + bc}, rows_of(bdV_, c0, bc, d),
               {bdP_, r0, c0, r0 + br, c0 + bc}, {bdS_, r0, c0, r0 + br, c0 + bc}, rows_of(bdQ_, r0, br, d),
               rows_of(bdK_, c0, bc, d)};
  // dKⱼ and dVⱼ are summed on chip over the Q blocks; finish_kv writes them to HBM once.
  st.kept = {rows_of(bdV_, c0, bc, d), rows_of(bdK_, c0, bc, d)};
  rec_.commit(std::move(st));
}

void AttnFlashBackwardNarration::finish_kv(int j, const BlockView& dK, const BlockView& dV) {
  const int c0 = j * r_.Bc, bc = std::min(r_.Bc, N - c0);
  auto& io = rec_.io();
  io.sram_reads += 2ull * bc * d;
  io.hbm_writes += 2ull * bc * d;
  set_grad("dk", c0, dK);
  set_grad("dv", c0, dV);
  if (!rec_.on()) return;
  Step st;
  st.pass = pass(j + 2), st.line = line(15), st.tile_j = j;
  st.label = "write dK" + sub(j + 1) + ", dV" + sub(j + 1);
  const std::string J = sub(j + 1);
  st.text = strf("K/V block %d done: dK%s and dV%s, summed on chip over every Q block, written to HBM once. Key row "
                 "%d: dK = %s, dV = %s",
                 j + 1, J.c_str(), J.c_str(), c0 + 1, list(dK).c_str(), list(dV).c_str());
  st.reads = {rows_of(bdK_, c0, bc, d), rows_of(bdV_, c0, bc, d)};
  st.writes = {rows_of(bdK_, c0, bc, d), rows_of(bdV_, c0, bc, d)};
  rec_.commit(std::move(st));
}

void AttnFlashBackwardNarration::finish() {}

}  // namespace flashstep
