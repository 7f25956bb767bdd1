// Where the attention lessons' buffers go in the matrix view (core/recording.h's axis roles and
// Place): rows are queries along the main band, Q left, S and P in the centre, O_acc and O right,
// m, l, LSE last; K and V on their side over S and P, so that k_j and v_j sit above column j.
// The engines' narration declares its buffers through these, and so would a new attention
// algorithm's (dO, dS, dK, ... with their own roles).
#pragma once

#include "core/recording.h"
#include "core/text.h"

#include <string>
#include <vector>

namespace flashstep::attention_buffers {

// Left to right along the main band (and the stacks over S and P top to bottom), as the
// matrix view's toolbar lists them.
enum : int { kOrderQ, kOrderK, kOrderS, kOrderP, kOrderV, kOrderAcc, kOrderO, kOrderStats };

inline BufferInfo scores(BufferInfo b, int order, std::vector<std::string> titles) {
  return b.axes(Axis::query, Axis::key).at(Place::centre, order).titled(std::move(titles));
}
inline BufferInfo tiled_scores(BufferInfo b) {
  return scores(std::move(b), kOrderS, {"S = QKᵀ · s: one tile on chip at a time", "S = QKᵀ·s", "S"});
}
// The tilde drawn over P (markup).
inline BufferInfo tiled_p(BufferInfo b) {
  return scores(std::move(b), kOrderP, {"\\~P = exp(S − m), per tile, not normalized", "\\~P", "P"}).shown_as("\\~P");
}
inline BufferInfo accumulator(BufferInfo b) {
  return b.axes(Axis::query, Axis::feature)
      .at(Place::right, kOrderAcc)
      .titled({"Oᵢ⁽ʲ⁾: O not yet divided by l", "Oᵢ⁽ʲ⁾", "Oᵢ"})
      .labelled("Oᵢ⁽ʲ⁾")
      .shown_as("O")
      .partial_sum("not yet divided");
}
// A column beside O, titled by its name or its first letter; m and l are the Steps tab's columns
// too; a name of several letters (LSE) is a word, not a symbol with a subscript.
inline BufferInfo per_row(BufferInfo b, int k) {
  const bool steps = b.name == "m" || b.name == "l";
  b.axes(Axis::query, Axis::none).at(Place::stats, kOrderStats + k).titled({b.name, b.name.substr(0, 1)});
  if (steps) b.in_steps();
  if (b.name.size() > 1) b.word();
  return b;
}

inline BufferInfo queries(int N, int d) {
  return BufferInfo{"Q", N, d, Space::hbm, "queries, one row per token"}
      .axes(Axis::query, Axis::feature)
      .at(Place::left, kOrderQ)
      .titled({"Q" + strf(" (%d×%d)", N, d), "Q"});
}
inline BufferInfo keys(int N, int d) {
  return BufferInfo{"K", N, d, Space::hbm, "keys, one row per token"}
      .axes(Axis::key, Axis::feature)
      .at(Place::above, kOrderK, "S")
      .titled({"Kᵀ" + strf(" (%d×%d)", d, N), "Kᵀ"});
}
inline BufferInfo values(int N, int d) {
  const std::string dn = strf(" (%d×%d)", d, N);
  return BufferInfo{"V", N, d, Space::hbm, "values, one row per token"}
      .axes(Axis::key, Axis::feature)
      .at(Place::above, kOrderV, "P")
      .titled({"Vᵀ" + dn + ": V on its side", "Vᵀ" + dn, "Vᵀ"});
}
inline BufferInfo output(int N, int d) {
  return BufferInfo{"O", N, d, Space::hbm, "the output O = softmax(S) V, in HBM"}
      .holds("output")
      .axes(Axis::query, Axis::feature)
      .at(Place::right, kOrderO)
      .titled({"O" + strf(" (%d×%d)", N, d), "O"});
}

// ---- the backward's buffers (core/narration_backward.cpp), after the forward's in each place ----

enum : int { kOrderDP = kOrderStats + 10, kOrderDS, kOrderDO, kOrderDQ, kOrderDV, kOrderDK };

// dP, dS: N × N, query rows by key columns, beside S and P.
inline BufferInfo score_grad(BufferInfo b, int order, std::vector<std::string> titles) {
  return scores(std::move(b), order, std::move(titles));
}
// dO, dQ: a row per query, beside O.
inline BufferInfo query_grad(BufferInfo b, int order, std::vector<std::string> titles) {
  return b.axes(Axis::query, Axis::feature).at(Place::right, order).titled(std::move(titles));
}
// dK, dV: a row per key, on its side over the matrix whose columns it sums (dV = Pᵀ dO over P,
// dK = s·dSᵀ Q over dS), so that dKⱼ sits above column j; its tiles are named by j.
inline BufferInfo key_grad(BufferInfo b, int order, std::string host, std::vector<std::string> titles) {
  return b.axes(Axis::key, Axis::feature).at(Place::above, order, std::move(host)).titled(std::move(titles));
}

}  // namespace flashstep::attention_buffers
