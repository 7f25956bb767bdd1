#include "core/narration_attention.h"

#include <cmath>

#include "core/attention_buffers.h"
#include "core/algorithms.h"
#include "core/initial_state.h"
#include "core/markup.h"
#include "core/mask.h"
#include "core/text.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace flashstep {
namespace {

bool is_neg_inf(double x) { return std::isinf(x) && x < 0; }

// An exponent "a − m" as the kernels take it: against 0 while m is still −∞ (the guard of the
// pseudocode, "m = −∞ → use 0"), so that no e^{−∞ + ∞} is ever formed.
std::string minus_base(double a, double m) {
  return num(a) + " − " + (is_neg_inf(m) ? "0" : m < 0 ? "(" + num(m) + ")" : num(m));
}

// The guard named, when a sentence used it.
std::string guard_note(double m) { return is_neg_inf(m) ? " (m = −∞ → use 0)" : ""; }

// "S_{12}": matrix M's tile or element (i, j), 0-based in, 1-based out; "S_{10,3}" once an index
// has two digits.
std::string tile_name(const char* M, int i, int j) {
  return strf("%s_{%d%s%d}", M, i + 1, i >= 9 || j >= 9 ? "," : "", j + 1);
}

// The accumulator of row i (1-based) after key or block j: O_{i}^{(j)}, the FlashAttention-2
// paper's name.
std::string acc(int i, int j) { return strf("O_{%d}^{(%d)}", i, j); }

}  // namespace

// ---- what every attention algorithm shares ---------------------------------------------------

using namespace attention_buffers;

AttnNarration::AttnNarration(const Resolved& r, Recorder& rec)
    : r_(r), rec_(rec), N(r.n), d(r.d), scaled_(r.scale != 1.0) {
  bQ_ = rec.add_buffer(queries(N, d));
  bK_ = rec.add_buffer(keys(N, d));
  bV_ = rec.add_buffer(values(N, d));
  bO_ = rec.add_buffer(output(N, d));
  rec.init(bQ_, r.q);
  rec.init(bK_, r.k);
  rec.init(bV_, r.v);
  rec.recording().output() = MatrixRM::Zero(N, d);
}

void AttnNarration::finish(const BlockView& O, const BlockView& m, const BlockView& l) {
  set_output(0, O);
  auto& out = rec_.recording();
  std::vector<double>&mv = out.m(), &lv = out.l();
  for (int i = 0; i < N; ++i) {
    mv[i] = m(i, 0);
    lv[i] = l(i, 0);
  }
}

void AttnNarration::scores_io(long long nr, long long nc) {
  rec_.io().flops += 2ull * nr * nc * d;
  if (scaled_) rec_.io().flops += static_cast<std::uint64_t>(nr) * nc;
}

void AttnNarration::write_block(int b, int r0, int c0, const BlockView& M) {
  if (!rec_.on()) return;
  for (int a = 0; a < M.rows(); ++a)
    for (int c = 0; c < M.cols(); ++c) rec_.write(b, r0 + a, c0 + c, M(a, c));
}

void AttnNarration::set_output(int r0, const BlockView& O) {
  MatrixRM& out = rec_.recording().output();
  for (int a = 0; a < O.rows(); ++a)
    for (int c = 0; c < O.cols(); ++c) out(r0 + a, c) = O(a, c);
}

void AttnNarration::tile_io(int br, int bc) {
  auto& io = rec_.io();
  // S_ij = Q_i K_jᵀ · s from Q_i, K_j in SRAM, kept there.
  scores_io(br, bc);
  io.sram_reads += static_cast<std::uint64_t>(br + bc) * d;
  io.sram_writes += static_cast<std::uint64_t>(br) * bc;
  // Row max, exp and sum of the tile: P̃_ij.
  io.flops += 3ull * br * bc;
  io.exps += static_cast<std::uint64_t>(br) * bc;
  io.sram_reads += 3ull * br * bc;
  io.sram_writes += static_cast<std::uint64_t>(br) * bc;
  // P̃_ij V_j.
  io.flops += 2ull * br * bc * d;
  io.sram_reads += static_cast<std::uint64_t>(br) * bc + static_cast<std::uint64_t>(bc) * d;
}

std::string AttnNarration::scale_text() const { return scaled_ ? " · " + num(r_.scale) : ""; }

std::string AttnNarration::list(const BlockView& M, int r, int max_items) {
  std::string out = "[";
  for (int k = 0; k < M.cols() && k < max_items; ++k) out += (k ? ", " : "") + num(M(r, k));
  if (M.cols() > max_items) out += ", …";
  return out + "]";
}

// ---- attn-naive ------------------------------------------------------------------------------

AttnNaiveNarration::AttnNaiveNarration(const Resolved& r, Recorder& rec) : AttnNarration(r, rec) {
  bS_ = rec.add_buffer(scores({"S", N, N, Space::hbm, "scores S = QKᵀ · s, materialized in HBM"}, kOrderS,
                              {"S = QKᵀ · s, in HBM", "S = QKᵀ·s", "S"}));
  bP_ = rec.add_buffer(scores({"P", N, N, Space::hbm, "P = softmax(S) row by row, materialized in HBM"}, kOrderP,
                              {"P = softmax(S), in HBM", "P = softmax(S)", "P"}));
  bm_ = rec.add_buffer(per_row({"m", N, 1, Space::reg, "max of each row of S"}, 0));
  bl_ = rec.add_buffer(per_row({"l", N, 1, Space::reg, "sum of e^{S − m} of each row"}, 1));
  rec.recording().pass_names = pass_names(r);
}

void AttnNaiveNarration::scores_row(int i, const BlockView& S_row) {
  // K is read once, with the first row.
  rec_.io().hbm_reads += static_cast<std::uint64_t>(d) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
  scores_io(1, N);
  rec_.io().hbm_writes += N;
  if (!rec_.on()) return;
  write_block(bS_, i, 0, S_row);
  Step st;
  st.pass = 1, st.line = 1, st.row = i;
  st.label = strf("S row %d", i + 1);
  st.text = strf("S%s = q%s Kᵀ%s = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                 scale_text().c_str(), list(S_row).c_str());
  st.reads = {rows_of(bQ_, i, 1, d), rows_of(bK_, 0, N, d)};
  st.writes = {rows_of(bS_, i, 1, N)};
  rec_.commit(std::move(st));
}

void AttnNaiveNarration::softmax_row(int i, double m, double l, const BlockView& P_row) {
  rec_.io().hbm_reads += N;
  rec_.io().flops += 4ull * N;
  rec_.io().exps += N;
  rec_.io().hbm_writes += N;
  rec_.recording().m()[i] = m;
  rec_.recording().l()[i] = l;
  if (!rec_.on()) return;
  write_block(bP_, i, 0, P_row);
  rec_.write(bm_, i, 0, m);
  rec_.write(bl_, i, 0, l);
  Step st;
  st.pass = 2, st.line = 2, st.row = i;
  st.label = strf("P row %d", i + 1);
  st.text = strf("row %d: m = max S%s = %s, l = sum e^{S%s − m} = %s, P%s = e^{S%s − m} / l = %s",
                 i + 1, sub(i + 1).c_str(), num(m).c_str(), sub(i + 1).c_str(), num(l).c_str(),
                 sub(i + 1).c_str(), sub(i + 1).c_str(), list(P_row).c_str());
  st.reads = {rows_of(bS_, i, 1, N)};
  st.writes = {rows_of(bP_, i, 1, N), {bm_, i, 0, i + 1, 1}, {bl_, i, 0, i + 1, 1}};
  rec_.commit(std::move(st));
}

void AttnNaiveNarration::output_row(int i, const BlockView& O_row) {
  // V is read once, with the first row.
  rec_.io().hbm_reads += static_cast<std::uint64_t>(N) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
  rec_.io().flops += 2ull * N * d;
  rec_.io().hbm_writes += d;
  set_output(i, O_row);
  if (!rec_.on()) return;
  write_block(bO_, i, 0, O_row);
  Step st;
  st.pass = 3, st.line = 3, st.row = i;
  st.label = strf("O row %d", i + 1);
  st.text = strf("O%s = P%s V = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                 list(O_row).c_str());
  st.reads = {rows_of(bP_, i, 1, N), rows_of(bV_, 0, N, d)};
  st.writes = {rows_of(bO_, i, 1, d)};
  rec_.commit(std::move(st));
}

// ---- attn-online -----------------------------------------------------------------------------

AttnOnlineNarration::AttnOnlineNarration(const Resolved& r, Recorder& rec) : AttnNarration(r, rec) {
  bS_ = rec.add_buffer(scores({"S", N, N, Space::reg, "each score Sᵢⱼ = qᵢ · kⱼ · s as it is computed"}, kOrderS,
                              {"scores Sᵢⱼ = qᵢ·kⱼ·s, one at a time", "S = QKᵀ·s", "S"}));
  bm_ = rec.add_buffer(per_row({"m", N, 1, Space::reg, "running max of the scores of row i"}, 0));
  bl_ = rec.add_buffer(per_row({"l", N, 1, Space::reg, "running sum of e^{Sᵢⱼ − m} of row i"}, 1));
  bacc_ = rec.add_buffer(accumulator({"O_acc", N, d, Space::reg,
                                      "the accumulator Oᵢ⁽ʲ⁾: row i's output before the division by l, rescaled as m grows"}));
  rec.recording().pass_names = pass_names(r);
}

void AttnOnlineNarration::start_row(int i) {
  rec_.io().hbm_reads += d;  // q_i
  if (!rec_.on()) return;
  rec_.write(bm_, i, 0, initial_state().m);
  rec_.write(bl_, i, 0, initial_state().l);
  for (int c = 0; c < d; ++c) rec_.write(bacc_, i, c, initial_state().o);
}

void AttnOnlineNarration::key(int i, int j, const AttnOnlineNumbers& u, const BlockView& o) {
  rec_.io().hbm_reads += 2ull * d;  // k_j, v_j
  scores_io(1, 1);
  rec_.io().flops += 3ull * d + 6;
  rec_.io().exps += 2;
  if (!rec_.on()) return;
  rec_.write(bS_, i, j, u.s);
  rec_.write(bm_, i, 0, u.m);
  rec_.write(bl_, i, 0, u.l);
  write_block(bacc_, i, 0, o);
  Step st;
  st.pass = i + 1, st.line = 4, st.line_end = 7, st.row = i;
  const std::string S = tile_name("S", i, j);
  st.label = plain_text(S);  // "S₂₄"
  st.text = strf("%s = q%s · k%s%s = %s;  m = max(%s, %s) = %s;  ", S.c_str(), sub(i + 1).c_str(),
                 sub(j + 1).c_str(), scale_text().c_str(), num(u.s).c_str(), num(u.m_old).c_str(),
                 num(u.s).c_str(), num(u.m).c_str());
  if (is_neg_inf(u.m)) {
    // FlashAttention's guard, at the step where it matters: no finite score yet.
    st.text += strf("no finite score yet, so the exponents are taken against 0 instead of m (m = −∞ → "
                    "use 0): the factor is e^{%s − 0} = 0 and e^{%s − 0} = 0;  l = %s·0 + 0 = %s, %s "
                    "stays 0",
                    num(u.m_old).c_str(), num(u.s).c_str(), num(u.l_old).c_str(), num(u.l).c_str(),
                    acc(i + 1, j + 1).c_str());
  } else {
    if (u.m != u.m_old && u.l_old != 0.0)
      st.text += strf("l and %s rescaled by e^{%s} = %s;  ", acc(i + 1, j).c_str(),
                      minus_base(u.m_old, u.m).c_str(), num(u.factor).c_str());
    st.text += strf("l = %s·%s + e^{%s} = %s·%s + %s = %s;  %s = %s·%s + %s·v%s",
                    num(u.l_old).c_str(), num(u.factor).c_str(), minus_base(u.s, u.m).c_str(),
                    num(u.l_old).c_str(), num(u.factor).c_str(), num(u.e).c_str(), num(u.l).c_str(),
                    acc(i + 1, j + 1).c_str(), acc(i + 1, j).c_str(), num(u.factor).c_str(),
                    num(u.e).c_str(), sub(j + 1).c_str());
  }
  st.reads = {rows_of(bQ_, i, 1, d), rows_of(bK_, j, 1, d), rows_of(bV_, j, 1, d)};
  st.writes = {{bS_, i, j, i + 1, j + 1}, {bm_, i, 0, i + 1, 1}, {bl_, i, 0, i + 1, 1},
               rows_of(bacc_, i, 1, d)};
  rec_.commit(std::move(st));
}

void AttnOnlineNarration::finish_row(int i, double m, double l, const BlockView& O_row) {
  // O_i = o / l: the only division, once per row.
  rec_.io().flops += d;
  rec_.io().hbm_writes += d;
  set_output(i, O_row);
  rec_.recording().m()[i] = m;
  rec_.recording().l()[i] = l;
  if (!rec_.on()) return;
  write_block(bO_, i, 0, O_row);
  Step st;
  st.pass = i + 1, st.line = 9, st.row = i;
  st.label = strf("O row %d", i + 1);
  const std::string o = acc(i + 1, Mask::of(r_).keys(i).end);  // after the row's last visible key
  st.text = l == 0.0 ? strf("O%s = 0, written to HBM: row %d has no finite score, so l = 0 and no probability "
                            "mass; FlashAttention writes 0 here rather than 0/0 = nan",
                            sub(i + 1).c_str(), i + 1)
                      : strf("O%s = %s / l = %s / %s = %s, written to HBM", sub(i + 1).c_str(), o.c_str(),
                             o.c_str(), num(l).c_str(), list(O_row).c_str());
  st.reads = {rows_of(bacc_, i, 1, d), {bl_, i, 0, i + 1, 1}};
  st.writes = {rows_of(bO_, i, 1, d)};
  rec_.commit(std::move(st));
}

// ---- attn-tiled (FlashAttention-1) -----------------------------------------------------------

AttnTiledNarration::AttnTiledNarration(const Resolved& r, Recorder& rec) : AttnNarration(r, rec) {
  bS_ = rec.add_buffer(tiled_scores({"S", N, N, Space::sram, "Sᵢⱼ tiles as computed on chip (never in HBM)"}));
  bP_ = rec.add_buffer(tiled_p({"P", N, N, Space::sram, "P̃ᵢⱼ = e^{Sᵢⱼ − m̃ᵢⱼ} tiles as computed on chip"}));
  bm_ = rec.add_buffer(per_row({"m", N, 1, Space::hbm, "running max mᵢ of each row, kept in HBM"}, 0));
  bl_ = rec.add_buffer(per_row({"l", N, 1, Space::hbm, "running sum lᵢ of each row, kept in HBM"}, 1));
  rec.recording().pass_names = pass_names(r);
  // Line 2: O = 0, l = 0, m = −inf in HBM.
  for (int i = 0; i < N; ++i) {
    rec.init(bm_, i, 0, initial_state().m);
    rec.init(bl_, i, 0, initial_state().l);
    for (int c = 0; c < d; ++c) rec.init(bO_, i, c, initial_state().o);
  }
}

void AttnTiledNarration::tile(int i, int j, bool load_kv, const TileRowNumbers& first,
                              const BlockView& S, const BlockView& P, const BlockView& O,
                              const BlockView& m, const BlockView& l) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  const int c0 = j * r_.Bc, bc = std::min(r_.Bc, N - c0);
  auto& io = rec_.io();
  if (load_kv) {  // line 6: K_j, V_j stay in SRAM for the whole inner loop
    io.hbm_reads += 2ull * bc * d;
    io.sram_writes += 2ull * bc * d;
  }
  // Line 8: Q_i, O_i, l_i, m_i from HBM.
  io.hbm_reads += 2ull * br * d + 2ull * br;
  io.sram_writes += 2ull * br * d + 2ull * br;
  // Line 9: S_ij = Q_i K_jᵀ · s. Line 10: m̃_ij, P̃_ij, l̃_ij of the tile alone. P̃_ij V_j.
  tile_io(br, bc);
  // Lines 11-13: merge with the running (m_i, l_i), rescale O_i, write all back.
  io.flops += 6ull * br + 5ull * br * d;
  io.exps += 2ull * br;
  io.sram_reads += static_cast<std::uint64_t>(br) * d;
  io.hbm_writes += static_cast<std::uint64_t>(br) * d + 2ull * br;
  if (!rec_.on()) return;
  Step st;
  // The first tile of K/V block j also loads K_j, V_j (line 6).
  const int first_line = load_kv ? 6 : 8;
  st.pass = j + 1, st.line = first_line, st.line_end = 13, st.tile_i = i, st.tile_j = j;
  st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
  // Three parts, in the order the kernel does them: the scores, the tile's own softmax, the
  // merge into the running (m_i, l_i, O_i) and the writes back to HBM.
  const std::string Sij = tile_name("S", i, j), I = sub(i + 1);
  write_block(bS_, r0, c0, S);
  const std::string J = sub(j + 1);
  rec_.end_part(st, first_line, 9,
                (load_kv ? strf("K%s, V%s loaded, to stay for the column; ", J.c_str(), J.c_str()) : std::string()) +
                    strf("Q%s, O%s, l%s, m%s loaded; %s = Q%s K%sᵀ%s is %d×%d on chip. Row %d: %s", I.c_str(),
                         I.c_str(), I.c_str(), I.c_str(), Sij.c_str(), I.c_str(), J.c_str(), scale_text().c_str(),
                         br, bc, r0 + 1, list(S).c_str()));
  write_block(bP_, r0, c0, P);
  rec_.end_part(st, 10, 10,
                strf("Row %d of the tile alone: \\~m = rowmax = %s, \\~P = e^{S − %s} = %s, "
                     "\\~l = rowsum \\~P = %s%s",
                     r0 + 1, num(first.m_tilde).c_str(), is_neg_inf(first.m_tilde) ? "0" : "\\~m",
                     list(P).c_str(), num(first.l_tilde).c_str(),
                     is_neg_inf(first.m_tilde) ? " (\\~m = −∞ → use 0: every score of the row is −∞)" : ""));
  write_block(bO_, r0, 0, O);
  for (int a = 0; a < m.rows(); ++a) {
    rec_.write(bm_, r0 + a, 0, m(a, 0));
    rec_.write(bl_, r0 + a, 0, l(a, 0));
  }
  // l_new = e^{m_i − m_new}·l_i + e^{\~m − m_new}·\~l, each exponent against 0 while m_new = −∞.
  const std::string l_new =
      strf("l_{new} = e^{%s}·%s + e^{%s}·%s = %s%s", minus_base(first.m_old, first.m).c_str(),
           num(first.l_old).c_str(), minus_base(first.m_tilde, first.m).c_str(), num(first.l_tilde).c_str(),
           num(first.l).c_str(), guard_note(first.m).c_str());
  const bool no_score = is_neg_inf(first.m);
  rec_.end_part(st, 11, 13,
                no_score ? strf("Row %d: m_{new} = max(%s, %s) = −∞: no finite score yet, so the exponents are "
                                "taken against 0 instead of m_{new}: %s, and O%s stays 0; O%s, l%s, m%s "
                                "written back to HBM",
                                r0 + 1, num(first.m_old).c_str(), num(first.m_tilde).c_str(), l_new.c_str(),
                                I.c_str(), I.c_str(), I.c_str(), I.c_str()) :
                strf("Row %d: m_{new} = max(%s, %s) = %s, %s; O%s rescaled and divided by l_{new}; O%s, l%s, "
                     "m%s written back to HBM",
                     r0 + 1, num(first.m_old).c_str(), num(first.m_tilde).c_str(), num(first.m).c_str(),
                     l_new.c_str(), I.c_str(), I.c_str(), I.c_str(), I.c_str()));
  // The merge of the last part in the step's sentence too: its own sentence shows only while
  // the parts are walked, and the last part is the whole step.
  st.text = strf("tile (i=%d, j=%d): %s = Q%s K%sᵀ%s is %d×%d on chip. Row %d: \\~m = %s, "
                 "m_{new} = max(%s, %s) = %s, %s; %sO%s, l%s, m%s written back to HBM",
                 i + 1, j + 1, Sij.c_str(), I.c_str(), sub(j + 1).c_str(), scale_text().c_str(), br, bc,
                 r0 + 1, num(first.m_tilde).c_str(), num(first.m_old).c_str(), num(first.m_tilde).c_str(),
                 num(first.m).c_str(), l_new.c_str(),
                 no_score ? "" : strf("O%s rescaled and divided by l_{new}; ", I.c_str()).c_str(), I.c_str(),
                 I.c_str(), I.c_str());
  st.reads = {{bK_, c0, 0, c0 + bc, d}, {bV_, c0, 0, c0 + bc, d}, {bQ_, r0, 0, r0 + br, d},
              {bO_, r0, 0, r0 + br, d}, {bm_, r0, 0, r0 + br, 1}, {bl_, r0, 0, r0 + br, 1}};
  st.writes = {{bS_, r0, c0, r0 + br, c0 + bc}, {bP_, r0, c0, r0 + br, c0 + bc},
               {bO_, r0, 0, r0 + br, d}, {bm_, r0, 0, r0 + br, 1}, {bl_, r0, 0, r0 + br, 1}};
  rec_.commit(std::move(st));
}

// ---- attn-tiled-v2 (FlashAttention-2) --------------------------------------------------------

AttnTiledV2Narration::AttnTiledV2Narration(const Resolved& r, Recorder& rec) : AttnNarration(r, rec) {
  bS_ = rec.add_buffer(tiled_scores({"S", N, N, Space::sram, "Sᵢⱼ tiles as computed on chip (never in HBM)"}));
  bP_ = rec.add_buffer(tiled_p({"P", N, N, Space::sram, "P̃ᵢⱼ = e^{Sᵢⱼ − mᵢ⁽ʲ⁾} tiles as computed on chip"}));
  bm_ = rec.add_buffer(per_row({"m", N, 1, Space::sram, "running max mᵢ, on chip"}, 0));
  bl_ = rec.add_buffer(per_row({"l", N, 1, Space::sram, "running sum lᵢ, on chip"}, 1));
  bacc_ = rec.add_buffer(accumulator({"O_acc", N, d, Space::sram, "the accumulator Oᵢ⁽ʲ⁾: Oᵢ before the division by l, on chip"}));
  bL_ = rec.add_buffer(per_row({"LSE", N, 1, Space::hbm, "Lᵢ = mᵢ + log lᵢ, the log-sum-exp (LSE) of row i, written to HBM for the backward pass; −∞ for a row with no finite score (log 0), where FlashAttention-2's kernel stores +∞"}, 2));
  rec.recording().pass_names = pass_names(r);
  rec.recording().lse().assign(static_cast<std::size_t>(N), 0.0);
}

void AttnTiledV2Narration::start_block(int i) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
  rec_.io().hbm_reads += static_cast<std::uint64_t>(br) * d;
  rec_.io().sram_writes += static_cast<std::uint64_t>(br) * d;
  block_start_ = true;
  if (!rec_.on()) return;
  for (int a = 0; a < br; ++a) {
    rec_.write(bm_, r0 + a, 0, initial_state().m);
    rec_.write(bl_, r0 + a, 0, initial_state().l);
    for (int c = 0; c < d; ++c) rec_.write(bacc_, r0 + a, c, initial_state().o);
  }
}

void AttnTiledV2Narration::tile(int i, int j, const TileRowNumbers& first, const BlockView& S,
                                const BlockView& P, const BlockView& O_acc, const BlockView& m,
                                const BlockView& l) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  const int c0 = j * r_.Bc, bc = std::min(r_.Bc, N - c0);
  auto& io = rec_.io();
  // Line 6: K_j, V_j into SRAM.
  io.hbm_reads += 2ull * bc * d;
  io.sram_writes += 2ull * bc * d;
  // Line 7: S_ij. Lines 8-9: P̃_ij against the new running max. Line 10: P̃_ij V_j.
  tile_io(br, bc);
  // Lines 8-10: the running max and sum, and O_i(j) = diag(exp(m_i(j-1) - m_i(j))) O_i(j-1)
  // + P̃_ij V_j, no division yet.
  io.flops += 4ull * br + 2ull * br * d;
  io.exps += br;
  // The block's first tile also loads Q_i and starts O_i, l_i, m_i (lines 3-4).
  const int first_line = block_start_ ? 3 : 6;
  block_start_ = false;
  if (!rec_.on()) return;
  Step st;
  st.pass = i + 1, st.line = first_line, st.line_end = 10, st.tile_i = i, st.tile_j = j;
  st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
  // Three parts, in the kernel's order: the scores, the running max and sum with the tile's
  // P̃ against the new max, and the rescaled accumulator.
  const std::string Sij = tile_name("S", i, j), J = sub(j + 1);
  write_block(bS_, r0, c0, S);
  const std::string I = sub(i + 1);
  rec_.end_part(st, first_line, 7,
                (first_line == 3 ? strf("Q%s loaded, O%s, l%s, m%s start on chip as 0, 0, −∞; ", I.c_str(), I.c_str(),
                                        I.c_str(), I.c_str())
                                 : std::string()) +
                    strf("K%s, V%s loaded; %s = Q%s K%sᵀ%s is %d×%d on chip. Row %d: %s", J.c_str(), J.c_str(),
                         Sij.c_str(), I.c_str(), J.c_str(), scale_text().c_str(), br, bc, r0 + 1, list(S).c_str()));
  write_block(bP_, r0, c0, P);
  for (int a = 0; a < m.rows(); ++a) {
    rec_.write(bm_, r0 + a, 0, m(a, 0));
    rec_.write(bl_, r0 + a, 0, l(a, 0));
  }
  // The row's m and l before and after the tile, in the paper's names.
  const std::string m_new = strf("m_{%d}^{(%d)}", r0 + 1, j + 1), m_prev = strf("m_{%d}^{(%d)}", r0 + 1, j);
  const std::string l_new = strf("l_{%d}^{(%d)}", r0 + 1, j + 1);
  const std::string l_sum = strf("%s = e^{%s}·%s + rowsum \\~P = %s%s", l_new.c_str(),
                                 minus_base(first.m_old, first.m).c_str(), num(first.l_old).c_str(),
                                 num(first.l).c_str(), guard_note(first.m).c_str());
  const bool no_score = is_neg_inf(first.m);
  rec_.end_part(st, 8, 9,
                no_score ? strf("Row %d: %s = max(%s, rowmax S) = −∞: no finite score yet, so the exponents are "
                                "taken against 0 instead of m: \\~P = e^{S − 0} = %s and %s",
                                r0 + 1, m_new.c_str(), num(first.m_old).c_str(), list(P).c_str(), l_sum.c_str()) :
                strf("Row %d: %s = max(%s = %s, rowmax S) = %s, \\~P = e^{S − %s} = %s, %s", r0 + 1,
                     m_new.c_str(), m_prev.c_str(), num(first.m_old).c_str(), num(first.m).c_str(),
                     num(first.m).c_str(), list(P).c_str(), l_sum.c_str()));
  write_block(bacc_, r0, 0, O_acc);
  const std::string o_new = acc(r0 + 1, j + 1), o_prev = acc(r0 + 1, j);
  rec_.end_part(st, 10, 10,
                strf("%s = %s·e^{%s} + \\~P V%s with e^{%s} = %s%s: row %d is %s, not yet divided by l",
                     o_new.c_str(), o_prev.c_str(), minus_base(first.m_old, first.m).c_str(), J.c_str(),
                     minus_base(first.m_old, first.m).c_str(), num(first.factor).c_str(),
                     guard_note(first.m).c_str(), r0 + 1, list(O_acc).c_str()));
  st.text = strf("tile (i=%d, j=%d): K%s, V%s loaded, %s = Q%s K%sᵀ%s is %d×%d on chip. Row %d: %s = max(%s, "
                 "rowmax S) = %s, %s; %s = %s·%s + \\~P V%s, not yet divided",
                 i + 1, j + 1, J.c_str(), J.c_str(), Sij.c_str(), sub(i + 1).c_str(), J.c_str(),
                 scale_text().c_str(), br, bc, r0 + 1, m_new.c_str(), num(first.m_old).c_str(),
                 num(first.m).c_str(), l_sum.c_str(), o_new.c_str(), o_prev.c_str(), num(first.factor).c_str(),
                 J.c_str());
  st.reads = {{bK_, c0, 0, c0 + bc, d}, {bV_, c0, 0, c0 + bc, d}, {bQ_, r0, 0, r0 + br, d}};
  st.writes = {{bS_, r0, c0, r0 + br, c0 + bc}, {bP_, r0, c0, r0 + br, c0 + bc},
               {bacc_, r0, 0, r0 + br, d}, {bm_, r0, 0, r0 + br, 1}, {bl_, r0, 0, r0 + br, 1}};
  rec_.commit(std::move(st));
}

void AttnTiledV2Narration::finish_block(int i, const BlockView& O, const BlockView& m,
                                        const BlockView& l, const BlockView& L) {
  const int r0 = i * r_.Br, br = std::min(r_.Br, N - r0);
  // Lines 11-13: divide once, log-sum-exp, write O_i and L_i.
  auto& out = rec_.recording();
  std::vector<double>&Lv = out.lse(), &mv = out.m(), &lv = out.l();
  for (int a = 0; a < br; ++a) {
    Lv[r0 + a] = L(a, 0);
    mv[r0 + a] = m(a, 0);
    lv[r0 + a] = l(a, 0);
    rec_.write(bL_, r0 + a, 0, L(a, 0));
  }
  auto& io = rec_.io();
  io.flops += static_cast<std::uint64_t>(br) * d + 2ull * br;
  io.sram_reads += static_cast<std::uint64_t>(br) * d + 2ull * br;
  io.hbm_writes += static_cast<std::uint64_t>(br) * d + br;
  set_output(r0, O);
  if (!rec_.on()) return;
  write_block(bO_, r0, 0, O);
  Step st;
  st.pass = i + 1, st.line = 12, st.line_end = 14, st.tile_i = i;
  st.label = "write O" + sub(i + 1) + ", L" + sub(i + 1);
  const std::string o_last = acc(i + 1, r_.Tc);
  st.text = l(0, 0) == 0.0
                ? strf("Q block %d done: O%s = diag(l)^{−1} %s, but row %d has no finite score (l = 0): its O is "
                       "0, not 0/0 = nan, and L = m + log l = −∞ + log 0 = −∞, the true log-sum-exp of no mass, "
                       "which FlashStep stores (FlashAttention-2's kernel stores +∞ there, so that its backward's "
                       "P = e^{S − L} is 0); O%s and L%s written to HBM",
                       i + 1, sub(i + 1).c_str(), o_last.c_str(), r0 + 1, sub(i + 1).c_str(), sub(i + 1).c_str())
                : strf("Q block %d done: O%s = diag(l)^{−1} %s (row %d: divided by l = %s once), "
                       "L = m + log l = %s; O%s and L%s written to HBM",
                       i + 1, sub(i + 1).c_str(), o_last.c_str(), r0 + 1, num(l(0, 0)).c_str(),
                       num(out.lse()[r0]).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str());
  st.reads = {{bacc_, r0, 0, r0 + br, d}, {bm_, r0, 0, r0 + br, 1}, {bl_, r0, 0, r0 + br, 1}};
  st.writes = {{bO_, r0, 0, r0 + br, d}, {bL_, r0, 0, r0 + br, 1}};
  rec_.commit(std::move(st));
}

}  // namespace flashstep
