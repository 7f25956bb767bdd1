#include "core/narration_softmax.h"

#include "core/algorithms.h"
#include "core/initial_state.h"
#include "core/lessons.h"
#include "core/text.h"

#include <cmath>
#include <limits>

namespace flashstep {
namespace {

// Why a quotient went to 0 or nan, appended to a step's sentence. The preset it points to is the
// Inputs panel's in every attention lesson; the sentence names the first of them that streams.
std::string nan_note(double a, double b, double y) {
  if (std::isinf(b) && std::isfinite(a)) return " — a finite number divided by ∞ is 0";
  if (a == 0 && b == 0)
    return " — 0 / 0 is undefined: every x of the row is −∞, so there is no probability mass, and "
           "numpy gives nan too. Attention chooses 0 for such a row instead (a query that sees no "
           "key), as FlashAttention's kernels do: see " + lesson_ref("attn-online") +
           "'s preset \"a row with no finite score\"";
  if (!std::isnan(y) || std::isnan(a) || std::isnan(b)) return "";
  return " — ∞ / ∞ is undefined: nan";
}

bool is_neg_inf(double x) { return std::isinf(x) && x < 0; }

// An exponent "z − m" with its numbers, against 0 while m is still −∞ (the guard: every x seen
// so far is −∞, and e^{−∞ − 0} = 0 where e^{−∞ − (−∞)} would be undefined).
std::string minus_base(double z, double m) {
  return num(z) + " − " + (is_neg_inf(m) ? "0" : m < 0 ? "(" + num(m) + ")" : num(m));
}
std::string guard_note(double m) { return is_neg_inf(m) ? " (m = −∞ → use 0)" : ""; }

}  // namespace

SoftmaxNarration::SoftmaxNarration(const Resolved& r, Recorder& rec)
    : r_(r), rec_(rec), scaled_(r.scale != 1.0) {
  const Algorithm a = r.scenario.algorithm;
  auto& out = rec.recording();
  bx_ = rec.add_buffer({"x", r.rows, r.n, Space::hbm, "the input scores, in HBM"});
  be_ = rec.add_buffer({"e", r.rows, r.n, Space::reg, "eᵢ = e^{xᵢ − m} as last computed, on chip"});
  by_ = rec.add_buffer(BufferInfo{"y", r.rows, r.n, Space::hbm, "the output, written to HBM"}.holds("output"));
  // m and l are the Steps tab's columns beside each step.
  const AlgorithmInfo& row = info(a);
  if (row.has_max) bm_ = rec.add_buffer(BufferInfo{"m", r.rows, 1, Space::reg, "running max of each row"}.in_steps());
  bl_ = rec.add_buffer(BufferInfo{"l", r.rows, 1, Space::reg, "running sum of exponentials of each row"}.in_steps());
  rec.init(bx_, r.x);
  for (int row_k = 0; row_k < r.rows; ++row_k) {
    if (bm_ >= 0) rec.init(bm_, row_k, 0, initial_state().m);
    rec.init(bl_, row_k, 0, initial_state().l);
  }
  // The passes come from the row; the normalizing step is the last pass, at the pseudocode's
  // line that writes y.
  out.pass_names = pass_names(r);
  if (!row.has_max) out.m().clear();  // naive softmax has no running max
  normalize_pass_ = static_cast<int>(out.pass_names.size());
  normalize_line_ = pseudocode_line(a, "    y_{i} ←");
  if (row.stores_lse) {
    blse_ = rec.add_buffer({"LSE", r.rows, 1, Space::reg, "the log-sum-exp LSE = m + log l, the quantity FlashAttention-2 stores as L"});
    out.lse().assign(static_cast<std::size_t>(r.rows), 0.0);
  }
  out.output() = MatrixRM::Constant(r.rows, r.n, 0.0);
  y_ = &out.output();  // no result is declared after this one
}

void SoftmaxNarration::load_io() {
  rec_.io().hbm_reads += 1;
  if (scaled_) rec_.io().flops += 1;
}

void SoftmaxNarration::store(int row, int i, double y) {
  rec_.io().hbm_writes += 1;
  rec_.write(by_, row, i, y);
  (*y_)(row, i) = y;
}

std::string SoftmaxNarration::x_name(int i) const { return (scaled_ ? "s·x" : "x") + sub(i + 1); }

std::string SoftmaxNarration::prefix(int row) const { return r_.rows > 1 ? strf("row %d: ", row + 1) : ""; }

std::string SoftmaxNarration::overflow_note(double arg, double e) const {
  if (!std::isinf(e) || !std::isfinite(arg)) return "";
  const Precision p = r_.scenario.precision;
  return strf(" — overflow: e^{%s} is larger than the largest %s (%s), so it becomes ∞",
              num(arg).c_str(), std::string(precision_name(p)).c_str(), num(precision_max(p)).c_str());
}

void SoftmaxNarration::sum_exp(int row, int i, double z, double e, double l_old, double l) {
  load_io();
  rec_.io().exps += 1;
  rec_.io().flops += 1;
  if (!rec_.on()) return;
  rec_.write(be_, row, i, e);
  rec_.write(bl_, row, 0, l);
  Step st;
  st.pass = 1, st.line = 3, st.row = row;
  st.label = prefix(row) + "l" + sub(i + 1);
  st.text = prefix(row) + strf("l%s = l%s + e^{%s} = %s + e^{%s} = %s + %s = %s", sub(i + 1).c_str(),
                               sub(i).c_str(), x_name(i).c_str(), num(l_old).c_str(), num(z).c_str(),
                               num(l_old).c_str(), num(e).c_str(), num(l).c_str()) +
            overflow_note(z, e);
  st.reads = {cell(bx_, row, i)};
  st.writes = {cell(be_, row, i), reg(bl_, row)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::running_max(int row, int i, double z, double m_old, double m) {
  load_io();
  rec_.io().flops += 1;
  if (!rec_.on()) return;
  rec_.write(bm_, row, 0, m);
  Step st;
  st.pass = 1, st.line = 3, st.row = row;
  st.label = prefix(row) + "m" + sub(i + 1);
  st.text = prefix(row) + strf("m%s = max(m%s = %s, %s = %s) = %s", sub(i + 1).c_str(), sub(i).c_str(),
                               num(m_old).c_str(), x_name(i).c_str(), num(z).c_str(), num(m).c_str());
  st.reads = {cell(bx_, row, i), reg(bm_, row)};
  st.writes = {reg(bm_, row)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::sum_exp_minus_max(int row, int i, double z, double m, double e, double l_old,
                                         double l) {
  load_io();
  rec_.io().exps += 1;
  rec_.io().flops += 2;
  if (!rec_.on()) return;
  rec_.write(be_, row, i, e);
  rec_.write(bl_, row, 0, l);
  Step st;
  st.pass = 2, st.line = 7, st.row = row;
  st.label = prefix(row) + "l" + sub(i + 1);
  st.text = prefix(row) + strf("l%s = l%s + e^{%s − m} = %s + e^{%s} = %s + %s = %s%s",
                               sub(i + 1).c_str(), sub(i).c_str(), x_name(i).c_str(), num(l_old).c_str(),
                               minus_base(z, m).c_str(), num(l_old).c_str(), num(e).c_str(),
                               num(l).c_str(), guard_note(m).c_str());
  st.reads = {cell(bx_, row, i), reg(bm_, row), reg(bl_, row)};
  st.writes = {cell(be_, row, i), reg(bl_, row)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::online(int row, int i, const OnlineNumbers& u) {
  load_io();
  rec_.io().flops += 5;  // max, two subtractions, multiply, add
  rec_.io().exps += 2;
  if (!rec_.on()) return;
  rec_.write(be_, row, i, u.e);
  rec_.write(bm_, row, 0, u.m);
  rec_.write(bl_, row, 0, u.l);
  Step st;
  st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
  st.label = prefix(row) + "m" + sub(i + 1) + ", l" + sub(i + 1);
  std::string t = strf("m%s = max(m%s = %s, %s = %s) = %s;  ", sub(i + 1).c_str(), sub(i).c_str(),
                       num(u.m_old).c_str(), x_name(i).c_str(), num(u.z).c_str(), num(u.m).c_str());
  if (u.m != u.m_old && u.l_old != 0.0)
    t += strf("m changed, so the old sum is rescaled by e^{%s − %s} = %s:  ", num(u.m_old).c_str(),
              num(u.m).c_str(), num(u.factor).c_str());
  // l_i = l_{i−1}·e^{m_{i−1} − m_i} + e^{x_i − m_i}, then the numbers; while m_i = −∞ the
  // exponents are taken against 0 (the guard), and the formula says so.
  const std::string base = is_neg_inf(u.m) ? "0" : "m" + sub(i + 1);
  t += strf("l%s = l%s·e^{m%s − %s} + e^{%s − %s} = ", sub(i + 1).c_str(), sub(i).c_str(), sub(i).c_str(),
            base.c_str(), x_name(i).c_str(), base.c_str());
  t += u.l_old == 0.0 ? strf("0 + %s = %s", num(u.e).c_str(), num(u.l).c_str())
                      : strf("%s·%s + %s = %s", num(u.l_old).c_str(), num(u.factor).c_str(), num(u.e).c_str(),
                             num(u.l).c_str());
  t += guard_note(u.m);
  st.text = prefix(row) + t;
  st.reads = {cell(bx_, row, i), reg(bm_, row), reg(bl_, row)};
  st.writes = {cell(be_, row, i), reg(bm_, row), reg(bl_, row)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::normalize(int row, int i, double z, double m, double l, double e, double y) {
  const bool subtract_m = bm_ >= 0;  // naive softmax has no max to subtract
  load_io();
  rec_.io().exps += 1;
  rec_.io().flops += subtract_m ? 2 : 1;
  store(row, i, y);
  if (!rec_.on()) return;
  rec_.write(be_, row, i, e);
  Step st;
  st.pass = normalize_pass_, st.line = normalize_line_, st.row = row;
  st.label = prefix(row) + "y" + sub(i + 1);
  if (subtract_m)
    st.text = strf("y%s = e^{%s − m} / l = e^{%s} / %s = %s / %s = %s%s", sub(i + 1).c_str(),
                   x_name(i).c_str(), minus_base(z, m).c_str(), num(l).c_str(), num(e).c_str(),
                   num(l).c_str(), num(y).c_str(), guard_note(m).c_str());
  else
    st.text = strf("y%s = e^{%s} / l = %s / %s = %s", sub(i + 1).c_str(), x_name(i).c_str(),
                   num(e).c_str(), num(l).c_str(), num(y).c_str());
  st.text = prefix(row) + st.text + overflow_note(z, e) + nan_note(e, l, y);
  st.reads = {cell(bx_, row, i), reg(bl_, row)};
  if (subtract_m) st.reads.push_back(reg(bm_, row));
  st.writes = {cell(be_, row, i), cell(by_, row, i)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::log_sum_exp(int row, double m, double l, double lse) {
  rec_.io().flops += 2;
  rec_.recording().lse()[row] = lse;
  if (!rec_.on()) return;
  rec_.write(blse_, row, 0, lse);
  Step st;
  st.pass = 2, st.line = 6, st.row = row;
  st.label = prefix(row) + "LSE";
  // LSE to the place of log l's digits: log y = x − LSE subtracts it next, where a large m
  // (1002) would leave "1002.4" too few digits for the difference.
  st.text = prefix(row) + strf("LSE = m + log l = %s + log %s = %s", num_to(m, lse - m).c_str(), num(l).c_str(),
                               num_to(lse, lse - m).c_str());
  st.reads = {reg(bm_, row), reg(bl_, row)};
  st.writes = {reg(blse_, row)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::log_softmax(int row, int i, double z, double lse, double y) {
  load_io();
  rec_.io().flops += 1;
  store(row, i, y);
  if (!rec_.on()) return;
  Step st;
  st.pass = 2, st.line = 8, st.row = row;
  st.label = prefix(row) + "log y" + sub(i + 1);
  st.text = prefix(row) + strf("log y%s = %s − LSE = %s − %s = %s", sub(i + 1).c_str(), x_name(i).c_str(),
                               num_to(z, y).c_str(), num_to(lse, y).c_str(), num(y).c_str());
  if (std::isnan(y) && std::isinf(z) && std::isinf(lse) && (z > 0) == (lse > 0))
    st.text += is_neg_inf(lse) ? " — ∞ − ∞ is undefined: every x of the row is −∞, so LSE = log 0 = −∞ and "
                                 "there is no probability mass to take the log of"
                               : " — ∞ − ∞ is undefined: an x is +∞, so LSE is +∞ too";
  st.reads = {cell(bx_, row, i), reg(blse_, row)};
  st.writes = {cell(by_, row, i)};
  rec_.commit(std::move(st));
}

void SoftmaxNarration::finish_row(int row, double m, double l) {
  auto& out = rec_.recording();
  if (bm_ >= 0) out.m()[row] = m;
  out.l()[row] = l;
}

// ---- chunked --------------------------------------------------------------------------------

ChunkedNarration::ChunkedNarration(const Resolved& r, Recorder& rec)
    : SoftmaxNarration(r, rec), K_(r.chunks), tree_(merge_tree(r.chunks)) {
  btm_ = rec.add_buffer({"m_tree", r.rows, nodes(), Space::sram,
                         "m of each worker (the first n_{w}: kept in its registers, written to shared memory when its chunk ends) and of each merge"});
  btl_ = rec.add_buffer({"l_tree", r.rows, nodes(), Space::sram,
                         "l of each worker (the first n_{w}: kept in its registers, written to shared memory when its chunk ends) and of each merge"});
}

void ChunkedNarration::start_row(int row) {
  for (int w = 0; w < nodes(); ++w) {
    rec_.init(btm_, row, w, initial_state().m);
    rec_.init(btl_, row, w, initial_state().l);
  }
}

void ChunkedNarration::worker(Step& st, int row, int w, int i, const OnlineNumbers& u) {
  load_io();
  rec_.io().flops += 5;
  rec_.io().exps += 2;
  // The running (m, l) lives in the worker's registers; its last value is the chunk's pair,
  // written once to shared memory for the merge.
  if (i == begin(w + 1) - 1) rec_.io().sram_writes += 2;
  if (!rec_.on()) return;
  rec_.write(be_, row, i, u.e);
  rec_.write(btm_, row, w, u.m);
  rec_.write(btl_, row, w, u.l);
  // A long sentence stops listing workers; the regions still name every one.
  if (st.text.size() < 400)
    st.text += strf("%sworker %d reads %s = %s: (m, l) = (%s, %s)", st.text.empty() ? "" : "; ", w + 1,
                    x_name(i).c_str(), num(u.z).c_str(), num(u.m).c_str(), num(u.l).c_str());
  st.reads.push_back(cell(bx_, row, i));
  st.writes.push_back(cell(btm_, row, w));
  st.writes.push_back(cell(btl_, row, w));
}

void ChunkedNarration::commit_workers(Step& st, int row, int t) {
  if (!rec_.on()) return;
  st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
  st.label = prefix(row) + strf("element %d of each chunk", t + 1);
  st.text = prefix(row) + st.text;
  rec_.commit(std::move(st));
}

void ChunkedNarration::merge(int row, int id, double m_left, double l_left, double m_right,
                             double l_right, double m, double l) {
  const MergeNode& nd = tree_[id];
  if (nd.right < 0) {
    rec_.io().sram_reads += 2;
    rec_.io().sram_writes += 2;
  } else {
    rec_.io().sram_reads += 4;
    rec_.io().sram_writes += 2;
    rec_.io().flops += 6;
    rec_.io().exps += 2;
  }
  if (!rec_.on()) return;
  rec_.write(btm_, row, id, m);
  rec_.write(btl_, row, id, l);
  Step st;
  st.pass = 2, st.line = 5, st.line_end = 6, st.row = row;
  st.label = prefix(row) + strf("merge level %d, node %d", nd.level, nd.index + 1);
  if (nd.right < 0) {
    st.text = strf("(m, l) = (%s, %s) has no partner on this level and moves up unchanged",
                   num(m).c_str(), num(l).c_str());
    st.reads = {cell(btm_, row, nd.left), cell(btl_, row, nd.left)};
  } else {
    st.text = strf("m = max(%s, %s) = %s;  l = %s·e^{%s} + %s·e^{%s} = %s%s", num(m_left).c_str(),
                   num(m_right).c_str(), num(m).c_str(), num(l_left).c_str(), minus_base(m_left, m).c_str(),
                   num(l_right).c_str(), minus_base(m_right, m).c_str(), num(l).c_str(), guard_note(m).c_str());
    st.reads = {cell(btm_, row, nd.left), cell(btl_, row, nd.left), cell(btm_, row, nd.right),
                cell(btl_, row, nd.right)};
  }
  st.text = prefix(row) + st.text;
  st.writes = {cell(btm_, row, id), cell(btl_, row, id)};
  if (id == nodes() - 1) {
    rec_.write(bm_, row, 0, m);
    rec_.write(bl_, row, 0, l);
    st.writes.push_back(reg(bm_, row));
    st.writes.push_back(reg(bl_, row));
    st.text += ": the global (m, l)";
  }
  rec_.commit(std::move(st));
}

void ChunkedNarration::global(int row, double m, double l) {
  if (K_ == 1 && rec_.on()) {  // a single worker's (m, l) is already the global one
    rec_.write(bm_, row, 0, m);
    rec_.write(bl_, row, 0, l);
  }
  rec_.io().sram_reads += 2 * static_cast<std::uint64_t>(K_);
}

void ChunkedNarration::normalize_element(Step& st, int row, int i, double z, double m, double l,
                                         double e, double y) {
  load_io();
  rec_.io().exps += 1;
  rec_.io().flops += 2;
  store(row, i, y);
  if (!rec_.on()) return;
  rec_.write(be_, row, i, e);
  if (st.text.size() < 400)
    st.text += strf("%sy%s = e^{%s} / %s = %s%s", st.text.empty() ? "" : "; ", sub(i + 1).c_str(),
                    minus_base(z, m).c_str(), num(l).c_str(), num(y).c_str(), guard_note(m).c_str());
  st.reads.push_back(cell(bx_, row, i));
  st.writes.push_back(cell(by_, row, i));
}

void ChunkedNarration::commit_normalized(Step& st, int row, int t) {
  if (!rec_.on()) return;
  st.pass = 3, st.line = 8, st.row = row;
  st.label = prefix(row) + strf("normalize element %d of each chunk", t + 1);
  st.text = prefix(row) + st.text;
  st.reads.push_back(reg(bm_, row));
  st.reads.push_back(reg(bl_, row));
  rec_.commit(std::move(st));
}

}  // namespace flashstep
