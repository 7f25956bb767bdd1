// The softmax engines: naive, safe, online, chunked, logsumexp.
//
// Each is written as the pseudocode in pseudocode.cpp reads, in the scalar type T of the
// chosen precision (so fp16 rounds after every operation), row by row: every row of x is its
// own softmax with its own m and l. Step::line numbers refer to those pseudocode lines.
#include "core/engine.h"
#include "core/recorder.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>

namespace flashstep {
namespace {

using std::exp;
using std::log;

// What every softmax engine shares: the buffers, loading x_i, and how steps name things.
template <class T>
struct SoftmaxRun {
  const Resolved& r;
  Recorder& rec;
  const T s;             // the score scale
  const bool scaled;
  int bx, be, by, bm = -1, bl;

  SoftmaxRun(const Resolved& r_, Recorder& rec_, bool with_m)
      : r(r_), rec(rec_), s(from_double<T>(r_.scale)), scaled(r_.scale != 1.0) {
    bx = rec.add_buffer({"x", r.rows, r.n, Space::hbm, "the input scores, in HBM"});
    be = rec.add_buffer({"e", r.rows, r.n, Space::reg, "exp(x_i - m) as last computed, on chip"});
    by = rec.add_buffer({"y", r.rows, r.n, Space::hbm, "the output, written to HBM"});
    if (with_m) bm = rec.add_buffer({"m", r.rows, 1, Space::reg, "running max of each row"});
    bl = rec.add_buffer({"l", r.rows, 1, Space::reg, "running sum of exponentials of each row"});
    rec.init(bx, r.x);
    for (int row = 0; row < r.rows; ++row) {
      if (bm >= 0) rec.init(bm, row, 0, -kInf);
      rec.init(bl, row, 0, 0.0);
    }
  }

  static constexpr double kInf = std::numeric_limits<double>::infinity();

  // Reads x[row][i] from HBM and applies the scale: one read, one flop when scaled.
  T load(int row, int i) {
    rec.io().hbm_reads += 1;
    T z = from_double<T>(r.x(row, i));
    if (scaled) {
      z = z * s;
      rec.io().flops += 1;
    }
    return z;
  }
  void store(int row, int i, T y) {
    rec.io().hbm_writes += 1;
    rec.write(by, row, i, to_double(y));
  }

  // "x₃" or "s·x₃" (1-based, as in the papers).
  std::string x_name(int i) const { return (scaled ? "s·x" : "x") + sub(i + 1); }
  std::string prefix(int row) const { return r.rows > 1 ? strf("row %d: ", row + 1) : ""; }
  Region cell(int b, int row, int i) const { return {b, row, i, row + 1, i + 1}; }
  Region reg(int b, int row) const { return {b, row, 0, row + 1, 1}; }

  // Why a value went non-finite, appended to a step's sentence.
  std::string overflow_note(T arg, T e) const {
    if (!std::isinf(to_double(e)) || !std::isfinite(to_double(arg))) return "";
    return strf(" — overflow: exp(%s) is larger than the largest %s (%s), so it becomes inf",
                num(to_double(arg)).c_str(), std::string(precision_name(r.scenario.precision)).c_str(),
                num(precision_max(r.scenario.precision)).c_str());
  }
  static std::string nan_note(T a, T b, T y) {
    if (std::isinf(to_double(b)) && std::isfinite(to_double(a)))
      return " — a finite number divided by inf is 0";
    if (!std::isnan(to_double(y)) || std::isnan(to_double(a)) || std::isnan(to_double(b))) return "";
    return " — inf / inf is undefined: nan";
  }

  void finish_row(int row, T m, T l) {
    auto& out = rec.recording();
    if (bm >= 0) out.m[row] = to_double(m);
    out.l[row] = to_double(l);
  }

  void init_output() { rec.recording().output = MatrixRM::Constant(r.rows, r.n, 0.0); }

  // The last pass of naive, safe and online: y_i = exp(x_i - m) / l, written to HBM. Naive
  // softmax has no max to subtract (subtract_m == false): y_i = exp(x_i) / l.
  void normalize_pass(int row, T m, T l, bool subtract_m, int pass, int line) {
    for (int i = 0; i < r.n; ++i) {
      const T z = load(row, i);
      const T e = subtract_m ? exp(z - m) : exp(z);
      const T y = e / l;
      rec.io().exps += 1;
      rec.io().flops += subtract_m ? 2 : 1;
      store(row, i, y);
      set_output(row, i, y);
      if (!rec.on()) continue;
      rec.write(be, row, i, to_double(e));
      Step st;
      st.pass = pass, st.line = line, st.row = row;
      st.label = prefix(row) + "y" + sub(i + 1);
      if (subtract_m)
        st.text = strf("y%s = exp(%s - m) / l = exp(%s - %s) / %s = %s / %s = %s", sub(i + 1).c_str(),
                       x_name(i).c_str(), num(to_double(z)).c_str(), num(to_double(m)).c_str(),
                       num(to_double(l)).c_str(), num(to_double(e)).c_str(),
                       num(to_double(l)).c_str(), num(to_double(y)).c_str());
      else
        st.text = strf("y%s = exp(%s) / l = %s / %s = %s", sub(i + 1).c_str(), x_name(i).c_str(),
                       num(to_double(e)).c_str(), num(to_double(l)).c_str(), num(to_double(y)).c_str());
      st.text = prefix(row) + st.text + overflow_note(z, e) + nan_note(e, l, y);
      st.reads = {cell(bx, row, i), reg(bl, row)};
      if (subtract_m) st.reads.push_back(reg(bm, row));
      st.writes = {cell(be, row, i), cell(by, row, i)};
      rec.commit(std::move(st));
    }
  }
  void set_output(int row, int i, T y) { rec.recording().output(row, i) = to_double(y); }
};

template <class T>
void naive(const Resolved& r, Recorder& rec) {
  SoftmaxRun<T> k(r, rec, /*with_m=*/false);
  rec.recording().pass_names = {"sum of exponentials", "normalize"};
  rec.recording().m.clear();  // naive softmax has no running max
  k.init_output();
  for (int row = 0; row < r.rows; ++row) {
    // 1. sum of exp(x_i): no max subtracted, so large x overflows.
    T l = T(0);
    for (int i = 0; i < r.n; ++i) {
      const T z = k.load(row, i);
      const T e = exp(z);
      const T l_old = l;
      l = l + e;
      rec.io().exps += 1;
      rec.io().flops += 1;
      if (rec.on()) {
        rec.write(k.be, row, i, to_double(e));
        rec.write(k.bl, row, 0, to_double(l));
        Step st;
        st.pass = 1, st.line = 3, st.row = row;
        st.label = k.prefix(row) + "l" + sub(i + 1);
        st.text = k.prefix(row) + strf("l%s = l%s + exp(%s) = %s + exp(%s) = %s + %s = %s",
                                       sub(i + 1).c_str(), sub(i).c_str(), k.x_name(i).c_str(),
                                       num(to_double(l_old)).c_str(), num(to_double(z)).c_str(),
                                       num(to_double(l_old)).c_str(), num(to_double(e)).c_str(),
                                       num(to_double(l)).c_str()) +
                  k.overflow_note(z, e);
        st.reads = {k.cell(k.bx, row, i)};
        st.writes = {k.cell(k.be, row, i), k.reg(k.bl, row)};
        rec.commit(std::move(st));
      }
    }
    // 2. normalize.
    k.normalize_pass(row, T(0), l, /*subtract_m=*/false, 2, 6);
    k.finish_row(row, T(0), l);
  }
}

template <class T>
void safe(const Resolved& r, Recorder& rec) {
  SoftmaxRun<T> k(r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max", "sum of exponentials", "normalize"};
  k.init_output();
  for (int row = 0; row < r.rows; ++row) {
    // 1. max. Subtracting it changes nothing mathematically; it only keeps exp() in range.
    T m = -inf_of<T>();
    for (int i = 0; i < r.n; ++i) {
      const T z = k.load(row, i);
      const T m_old = m;
      m = std::max(m, z);
      rec.io().flops += 1;
      if (rec.on()) {
        rec.write(k.bm, row, 0, to_double(m));
        Step st;
        st.pass = 1, st.line = 3, st.row = row;
        st.label = k.prefix(row) + "m" + sub(i + 1);
        st.text = k.prefix(row) + strf("m%s = max(m%s = %s, %s = %s) = %s", sub(i + 1).c_str(),
                                       sub(i).c_str(), num(to_double(m_old)).c_str(),
                                       k.x_name(i).c_str(), num(to_double(z)).c_str(),
                                       num(to_double(m)).c_str());
        st.reads = {k.cell(k.bx, row, i), k.reg(k.bm, row)};
        st.writes = {k.reg(k.bm, row)};
        rec.commit(std::move(st));
      }
    }
    // 2. sum of exp(x_i - m): every term is at most 1, so nothing overflows.
    T l = T(0);
    for (int i = 0; i < r.n; ++i) {
      const T z = k.load(row, i);
      const T e = exp(z - m);
      const T l_old = l;
      l = l + e;
      rec.io().exps += 1;
      rec.io().flops += 2;
      if (rec.on()) {
        rec.write(k.be, row, i, to_double(e));
        rec.write(k.bl, row, 0, to_double(l));
        Step st;
        st.pass = 2, st.line = 7, st.row = row;
        st.label = k.prefix(row) + "l" + sub(i + 1);
        st.text = k.prefix(row) + strf("l%s = l%s + exp(%s - m) = %s + exp(%s - %s) = %s + %s = %s",
                                       sub(i + 1).c_str(), sub(i).c_str(), k.x_name(i).c_str(),
                                       num(to_double(l_old)).c_str(), num(to_double(z)).c_str(),
                                       num(to_double(m)).c_str(), num(to_double(l_old)).c_str(),
                                       num(to_double(e)).c_str(), num(to_double(l)).c_str());
        st.reads = {k.cell(k.bx, row, i), k.reg(k.bm, row), k.reg(k.bl, row)};
        st.writes = {k.cell(k.be, row, i), k.reg(k.bl, row)};
        rec.commit(std::move(st));
      }
    }
    // 3. normalize.
    k.normalize_pass(row, m, l, /*subtract_m=*/true, 3, 10);
    k.finish_row(row, m, l);
  }
}

// The online normalizer update (Milakov & Gimelshein): one element folded into (m, l).
// Returns the rescale factor exp(m_old - m_new) applied to the old sum.
template <class T>
struct OnlineUpdate {
  T m_old, l_old, m, l, factor, e;
};

// exp(a - b), exactly 0 when a = -inf: a masked entry adds nothing and an (m, l) that has seen
// only masked entries (m = -inf, l = 0) needs no rescale, even when b is -inf too and
// exp(-inf + inf) would be nan.
template <class T>
T exp_diff(T a, T b) {
  if (std::isinf(to_double(a)) && to_double(a) < 0) return T(0);
  return exp(a - b);
}

template <class T>
OnlineUpdate<T> online_update(T m, T l, T z, IoCounters& io) {
  OnlineUpdate<T> u;
  u.m_old = m;
  u.l_old = l;
  u.m = std::max(m, z);
  u.factor = exp_diff(m, u.m);
  u.e = exp_diff(z, u.m);
  u.l = l * u.factor + u.e;
  io.flops += 5;  // max, two subtractions, multiply, add
  io.exps += 2;
  return u;
}

template <class T>
std::string online_text(const SoftmaxRun<T>& k, int i, T z, const OnlineUpdate<T>& u) {
  std::string t = strf("m%s = max(m%s = %s, %s = %s) = %s;  ", sub(i + 1).c_str(), sub(i).c_str(),
                       num(to_double(u.m_old)).c_str(), k.x_name(i).c_str(),
                       num(to_double(z)).c_str(), num(to_double(u.m)).c_str());
  if (to_double(u.m) != to_double(u.m_old) && u.l_old != T(0))
    t += strf("m changed, so the old sum is rescaled by exp(%s - %s) = %s:  ",
              num(to_double(u.m_old)).c_str(), num(to_double(u.m)).c_str(),
              num(to_double(u.factor)).c_str());
  t += strf("l%s = %s * %s + exp(%s - %s) = %s", sub(i + 1).c_str(), num(to_double(u.l_old)).c_str(),
            num(to_double(u.factor)).c_str(), num(to_double(z)).c_str(), num(to_double(u.m)).c_str(),
            num(to_double(u.l)).c_str());
  return t;
}

// Pass 1 of online and logsumexp: (m, l) of one row in one sweep.
template <class T>
std::pair<T, T> online_pass(SoftmaxRun<T>& k, int row) {
  Recorder& rec = k.rec;
  T m = -inf_of<T>(), l = T(0);
  for (int i = 0; i < k.r.n; ++i) {
    const T z = k.load(row, i);
    const auto u = online_update(m, l, z, rec.io());
    m = u.m;
    l = u.l;
    if (rec.on()) {
      rec.write(k.be, row, i, to_double(u.e));
      rec.write(k.bm, row, 0, to_double(m));
      rec.write(k.bl, row, 0, to_double(l));
      Step st;
      st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
      st.label = k.prefix(row) + "m" + sub(i + 1) + ", l" + sub(i + 1);
      st.text = k.prefix(row) + online_text(k, i, z, u);
      st.reads = {k.cell(k.bx, row, i), k.reg(k.bm, row), k.reg(k.bl, row)};
      st.writes = {k.cell(k.be, row, i), k.reg(k.bm, row), k.reg(k.bl, row)};
      rec.commit(std::move(st));
    }
  }
  return {m, l};
}

template <class T>
void online(const Resolved& r, Recorder& rec) {
  SoftmaxRun<T> k(r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max and sum together", "normalize"};
  k.init_output();
  for (int row = 0; row < r.rows; ++row) {
    // 1. m and l in one sweep: l is rescaled whenever the max grows.
    const auto [m, l] = online_pass(k, row);
    // 2. normalize.
    k.normalize_pass(row, m, l, /*subtract_m=*/true, 2, 7);
    k.finish_row(row, m, l);
  }
}

template <class T>
void logsumexp(const Resolved& r, Recorder& rec) {
  SoftmaxRun<T> k(r, rec, /*with_m=*/true);
  rec.recording().pass_names = {"max and sum together", "log-softmax"};
  const int blse = rec.add_buffer({"LSE", r.rows, 1, Space::reg, "log-sum-exp m + log l"});
  k.init_output();
  rec.recording().lse.assign(static_cast<std::size_t>(r.rows), 0.0);
  for (int row = 0; row < r.rows; ++row) {
    const auto [m, l] = online_pass(k, row);
    // LSE = log Σ exp(x_i) computed without overflow: m + log l.
    const T lse = m + log(l);
    rec.io().flops += 2;
    rec.recording().lse[row] = to_double(lse);
    if (rec.on()) {
      rec.write(blse, row, 0, to_double(lse));
      Step st;
      st.pass = 2, st.line = 6, st.row = row;
      st.label = k.prefix(row) + "LSE";
      st.text = k.prefix(row) + strf("LSE = m + log l = %s + log %s = %s", num(to_double(m)).c_str(),
                                     num(to_double(l)).c_str(), num(to_double(lse)).c_str());
      st.reads = {k.reg(k.bm, row), k.reg(k.bl, row)};
      st.writes = {k.reg(blse, row)};
      rec.commit(std::move(st));
    }
    for (int i = 0; i < r.n; ++i) {
      const T z = k.load(row, i);
      const T y = z - lse;
      rec.io().flops += 1;
      k.store(row, i, y);
      k.set_output(row, i, y);
      if (rec.on()) {
        Step st;
        st.pass = 2, st.line = 8, st.row = row;
        st.label = k.prefix(row) + "log y" + sub(i + 1);
        st.text = k.prefix(row) + strf("log y%s = %s - LSE = %s - %s = %s", sub(i + 1).c_str(),
                                       k.x_name(i).c_str(), num(to_double(z)).c_str(),
                                       num(to_double(lse)).c_str(), num(to_double(y)).c_str());
        st.reads = {k.cell(k.bx, row, i), k.reg(blse, row)};
        st.writes = {k.cell(k.by, row, i)};
        rec.commit(std::move(st));
      }
    }
    k.finish_row(row, m, l);
  }
}

template <class T>
void chunked(const Resolved& r, Recorder& rec) {
  SoftmaxRun<T> k(r, rec, /*with_m=*/true);
  const int K = r.chunks;
  const auto tree = merge_tree(K);
  const int nodes = static_cast<int>(tree.size());
  const int btm = rec.add_buffer({"m_tree", r.rows, nodes, Space::sram,
                                  "(m) of each worker (first K) and of each merge, in shared memory"});
  const int btl = rec.add_buffer({"l_tree", r.rows, nodes, Space::sram,
                                  "(l) of each worker (first K) and of each merge, in shared memory"});
  rec.recording().pass_names = {"each worker: online (m, l) of its chunk", "merge (m, l) pairs",
                                "normalize"};
  k.init_output();
  // Worker k owns [begin(k), begin(k+1)): sizes differ by at most one, none is empty.
  auto begin = [&](int w) { return static_cast<int>(static_cast<long long>(w) * r.n / K); };
  const int longest = begin(1) - begin(0) + (r.n % K ? 1 : 0);
  for (int row = 0; row < r.rows; ++row) {
    for (int w = 0; w < nodes; ++w) {
      rec.init(btm, row, w, -SoftmaxRun<T>::kInf);
      rec.init(btl, row, w, 0.0);
    }
    std::vector<T> tm(static_cast<std::size_t>(nodes), -inf_of<T>()), tl(static_cast<std::size_t>(nodes), T(0));
    // 1. Every worker runs the online update over its own chunk; all advance in lockstep.
    for (int t = 0; t < longest; ++t) {
      Step st;
      st.pass = 1, st.line = 3, st.line_end = 4, st.row = row;
      for (int w = 0; w < K; ++w) {
        const int i = begin(w) + t;
        if (i >= begin(w + 1)) continue;
        const T z = k.load(row, i);
        const auto u = online_update(tm[w], tl[w], z, rec.io());
        tm[w] = u.m;
        tl[w] = u.l;
        rec.io().sram_writes += 2;
        if (rec.on()) {
          rec.write(k.be, row, i, to_double(u.e));
          rec.write(btm, row, w, to_double(u.m));
          rec.write(btl, row, w, to_double(u.l));
          if (st.text.size() < 400)
            st.text += strf("%sworker %d reads %s = %s: (m, l) = (%s, %s)", st.text.empty() ? "" : "; ",
                            w + 1, k.x_name(i).c_str(), num(to_double(z)).c_str(),
                            num(to_double(u.m)).c_str(), num(to_double(u.l)).c_str());
          st.reads.push_back(k.cell(k.bx, row, i));
          st.writes.push_back(k.cell(btm, row, w));
          st.writes.push_back(k.cell(btl, row, w));
        }
      }
      if (rec.on()) {
        st.label = k.prefix(row) + strf("element %d of each chunk", t + 1);
        st.text = k.prefix(row) + st.text;
        rec.commit(std::move(st));
      }
    }
    // 2. Merge pairs up the tree, as a shared-memory reduction does.
    for (int id = K; id < nodes; ++id) {
      const MergeNode& nd = tree[id];
      if (nd.right < 0) {
        tm[id] = tm[nd.left];
        tl[id] = tl[nd.left];
        rec.io().sram_reads += 2;
        rec.io().sram_writes += 2;
      } else {
        const T ma = tm[nd.left], la = tl[nd.left], mb = tm[nd.right], lb = tl[nd.right];
        const T m = std::max(ma, mb);
        const T fa = exp_diff(ma, m), fb = exp_diff(mb, m);
        tm[id] = m;
        tl[id] = la * fa + lb * fb;
        rec.io().sram_reads += 4;
        rec.io().sram_writes += 2;
        rec.io().flops += 6;
        rec.io().exps += 2;
      }
      if (rec.on()) {
        rec.write(btm, row, id, to_double(tm[id]));
        rec.write(btl, row, id, to_double(tl[id]));
        Step st;
        st.pass = 2, st.line = 5, st.line_end = 6, st.row = row;
        st.label = k.prefix(row) + strf("merge level %d, node %d", nd.level, nd.index + 1);
        if (nd.right < 0) {
          st.text = strf("(m, l) = (%s, %s) has no partner on this level and moves up unchanged",
                         num(to_double(tm[id])).c_str(), num(to_double(tl[id])).c_str());
          st.reads = {k.cell(btm, row, nd.left), k.cell(btl, row, nd.left)};
        } else {
          const T ma = tm[nd.left], mb = tm[nd.right];
          st.text = strf("m = max(%s, %s) = %s;  l = %s * exp(%s - %s) + %s * exp(%s - %s) = %s",
                         num(to_double(ma)).c_str(), num(to_double(mb)).c_str(),
                         num(to_double(tm[id])).c_str(), num(to_double(tl[nd.left])).c_str(),
                         num(to_double(ma)).c_str(), num(to_double(tm[id])).c_str(),
                         num(to_double(tl[nd.right])).c_str(), num(to_double(mb)).c_str(),
                         num(to_double(tm[id])).c_str(), num(to_double(tl[id])).c_str());
          st.reads = {k.cell(btm, row, nd.left), k.cell(btl, row, nd.left),
                      k.cell(btm, row, nd.right), k.cell(btl, row, nd.right)};
        }
        st.text = k.prefix(row) + st.text;
        st.writes = {k.cell(btm, row, id), k.cell(btl, row, id)};
        if (id == nodes - 1) {
          rec.write(k.bm, row, 0, to_double(tm[id]));
          rec.write(k.bl, row, 0, to_double(tl[id]));
          st.writes.push_back(k.reg(k.bm, row));
          st.writes.push_back(k.reg(k.bl, row));
          st.text += ": the global (m, l)";
        }
        rec.commit(std::move(st));
      }
    }
    const T m = tm[nodes - 1], l = tl[nodes - 1];
    if (K == 1 && rec.on()) {  // a single worker's (m, l) is already the global one
      rec.write(k.bm, row, 0, to_double(m));
      rec.write(k.bl, row, 0, to_double(l));
    }
    // 3. Every worker normalizes its chunk with the global (m, l).
    rec.io().sram_reads += 2 * static_cast<std::uint64_t>(K);
    for (int t = 0; t < longest; ++t) {
      Step st;
      st.pass = 3, st.line = 8, st.row = row;
      for (int w = 0; w < K; ++w) {
        const int i = begin(w) + t;
        if (i >= begin(w + 1)) continue;
        const T z = k.load(row, i);
        const T e = exp(z - m);
        const T y = e / l;
        rec.io().exps += 1;
        rec.io().flops += 2;
        k.store(row, i, y);
        k.set_output(row, i, y);
        if (rec.on()) {
          rec.write(k.be, row, i, to_double(e));
          if (st.text.size() < 400)
            st.text += strf("%sy%s = exp(%s - %s) / %s = %s", st.text.empty() ? "" : "; ",
                            sub(i + 1).c_str(), num(to_double(z)).c_str(), num(to_double(m)).c_str(),
                            num(to_double(l)).c_str(), num(to_double(y)).c_str());
          st.reads.push_back(k.cell(k.bx, row, i));
          st.writes.push_back(k.cell(k.by, row, i));
        }
      }
      if (rec.on()) {
        st.label = k.prefix(row) + strf("normalize element %d of each chunk", t + 1);
        st.text = k.prefix(row) + st.text;
        st.reads.push_back(k.reg(k.bm, row));
        st.reads.push_back(k.reg(k.bl, row));
        rec.commit(std::move(st));
      }
    }
    k.finish_row(row, m, l);
  }
}

}  // namespace

#define FLASHSTEP_DISPATCH(name)                                                  \
  void record_##name(const Resolved& r, Recorder& rec) {                          \
    with_scalar(r.scenario.precision, [&](auto zero) { name<decltype(zero)>(r, rec); }); \
  }
FLASHSTEP_DISPATCH(naive)
FLASHSTEP_DISPATCH(safe)
FLASHSTEP_DISPATCH(online)
FLASHSTEP_DISPATCH(chunked)
FLASHSTEP_DISPATCH(logsumexp)
#undef FLASHSTEP_DISPATCH

}  // namespace flashstep
