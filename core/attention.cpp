// The attention engines: attn-naive, attn-online, attn-tiled (FlashAttention-1) and
// attn-tiled-v2 (FlashAttention-2), in the scalar type T of the chosen precision.
//
// Shapes: Q, K, V, O are N × d; S = Q Kᵀ · s and P = softmax(S) are N × N; tiles Q_i are
// Br × d, K_j and V_j are Bc × d, S_ij and P̃_ij are Br × Bc. All row-major. The last block of
// each kind may be smaller when N is not a multiple of Br or Bc. Step::line numbers refer to
// the pseudocode in pseudocode.cpp.
#include "core/engine.h"
#include "core/recorder.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>

namespace flashstep {
namespace {

using std::exp;
using std::log;

template <class T>
MatRM<T> cast(const MatrixRM& m) {
  return m.unaryExpr([](double v) { return from_double<T>(v); });
}

template <class T>
constexpr bool kNative = std::is_same_v<T, float> || std::is_same_v<T, double>;

// C = A Bᵀ (A is r × d, B is c × d). fp64/fp32 use Eigen's product; fp16/bf16 accumulate
// element by element so every multiply and add rounds to 16 bits, as the emulation promises.
template <class T>
MatRM<T> mul_abt(const MatRM<T>& A, const MatRM<T>& B) {
  if constexpr (kNative<T>) {
    return A * B.transpose();
  } else {
    MatRM<T> C(A.rows(), B.rows());
    for (Eigen::Index r = 0; r < A.rows(); ++r)
      for (Eigen::Index c = 0; c < B.rows(); ++c) {
        T acc = T(0);
        for (Eigen::Index k = 0; k < A.cols(); ++k) acc = acc + A(r, k) * B(c, k);
        C(r, c) = acc;
      }
    return C;
  }
}

// C = A B (A is r × c, B is c × d).
template <class T>
MatRM<T> mul_ab(const MatRM<T>& A, const MatRM<T>& B) {
  if constexpr (kNative<T>) {
    return A * B;
  } else {
    MatRM<T> C(A.rows(), B.cols());
    for (Eigen::Index r = 0; r < A.rows(); ++r)
      for (Eigen::Index c = 0; c < B.cols(); ++c) {
        T acc = T(0);
        for (Eigen::Index k = 0; k < A.cols(); ++k) acc = acc + A(r, k) * B(k, c);
        C(r, c) = acc;
      }
    return C;
  }
}

// exp(s - m) for an attention score, where a masked score (−inf) contributes exactly 0 even
// when its whole row in the tile is masked (m = −inf), instead of exp(−inf + inf) = nan.
template <class T>
T p_of(T s, T m) {
  if (std::isinf(to_double(s)) && to_double(s) < 0) return T(0);
  return exp(s - m);
}

// What every attention engine shares: buffers, inputs in T, the mask, text helpers.
template <class T>
struct AttnRun {
  const Resolved& r;
  Recorder& rec;
  const int N, d;
  const T s;
  const bool scaled, causal;
  MatRM<T> Q, K, V;
  int bQ, bK, bV, bO;

  AttnRun(const Resolved& r_, Recorder& rec_)
      : r(r_), rec(rec_), N(r_.n), d(r_.d), s(from_double<T>(r_.scale)), scaled(r_.scale != 1.0),
        causal(r_.scenario.causal), Q(cast<T>(r_.q)), K(cast<T>(r_.k)), V(cast<T>(r_.v)) {
    bQ = rec.add_buffer({"Q", N, d, Space::hbm, "queries, one row per token"});
    bK = rec.add_buffer({"K", N, d, Space::hbm, "keys, one row per token"});
    bV = rec.add_buffer({"V", N, d, Space::hbm, "values, one row per token"});
    bO = rec.add_buffer({"O", N, d, Space::hbm, "the output O = softmax(S) V, in HBM"});
    rec.init(bQ, r.q);
    rec.init(bK, r.k);
    rec.init(bV, r.v);
    auto& out = rec.recording();
    out.output = MatrixRM::Zero(N, d);
  }

  bool masked(int i, int j) const { return causal && j > i; }
  // Scores of a block: S = Q[rows] K[cols]ᵀ · s with the causal mask applied.
  MatRM<T> scores(int r0, int nr, int c0, int nc) {
    MatRM<T> S = mul_abt<T>(Q.middleRows(r0, nr), K.middleRows(c0, nc));
    rec.io().flops += 2ull * nr * nc * d;
    if (scaled) {
      for (Eigen::Index k = 0; k < S.size(); ++k) S.data()[k] = S.data()[k] * s;
      rec.io().flops += static_cast<std::uint64_t>(nr) * nc;
    }
    for (int a = 0; a < nr; ++a)
      for (int b = 0; b < nc; ++b)
        if (masked(r0 + a, c0 + b)) S(a, b) = -inf_of<T>();
    return S;
  }
  void write_block(int b, int r0, int c0, const MatRM<T>& M) {
    if (!rec.on()) return;
    for (Eigen::Index a = 0; a < M.rows(); ++a)
      for (Eigen::Index c = 0; c < M.cols(); ++c)
        rec.write(b, r0 + static_cast<int>(a), c0 + static_cast<int>(c), to_double(M(a, c)));
  }
  void set_output(int r0, const MatRM<T>& O) {
    for (Eigen::Index a = 0; a < O.rows(); ++a)
      for (Eigen::Index c = 0; c < O.cols(); ++c)
        rec.recording().output(r0 + a, c) = to_double(O(a, c));
  }
  static Region rows_of(int b, int r0, int nr, int cols) { return {b, r0, 0, r0 + nr, cols}; }
  static std::string list(const MatRM<T>& row, int max_items = 4) {
    std::string out = "[";
    for (Eigen::Index k = 0; k < row.size() && k < max_items; ++k)
      out += (k ? ", " : "") + num(to_double(row.data()[k]));
    if (row.size() > max_items) out += ", …";
    return out + "]";
  }
};

template <class T>
void attn_naive(const Resolved& r, Recorder& rec) {
  AttnRun<T> a(r, rec);
  const int N = a.N, d = a.d;
  const int bS = rec.add_buffer({"S", N, N, Space::hbm, "scores S = Q K^T * s, materialized in HBM"});
  const int bP = rec.add_buffer({"P", N, N, Space::hbm, "P = softmax(S) row by row, materialized in HBM"});
  const int bm = rec.add_buffer({"m", N, 1, Space::reg, "max of each row of S"});
  const int bl = rec.add_buffer({"l", N, 1, Space::reg, "sum of exp(S - m) of each row"});
  rec.recording().pass_names = {"kernel 1: S = QK^T", "kernel 2: P = softmax(S)", "kernel 3: O = PV"};

  // Kernel 1: S = Q Kᵀ · s, written to HBM (N² writes). K is read once, with the first row.
  MatRM<T> S(N, N);
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += static_cast<std::uint64_t>(d) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
    S.row(i) = a.scores(i, 1, 0, N);
    rec.io().hbm_writes += N;
    if (rec.on()) {
      a.write_block(bS, i, 0, S.middleRows(i, 1));
      Step st;
      st.pass = 1, st.line = 1, st.row = i;
      st.label = strf("S row %d", i + 1);
      st.text = strf("S%s = q%s K^T%s = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.scaled ? (" * " + num(r.scale)).c_str() : "", a.list(S.middleRows(i, 1)).c_str());
      st.reads = {a.rows_of(a.bQ, i, 1, d), a.rows_of(a.bK, 0, N, d)};
      st.writes = {a.rows_of(bS, i, 1, N)};
      rec.commit(std::move(st));
    }
  }
  // Kernel 2: P = softmax(S), one row at a time (safe softmax in registers), P written to HBM.
  MatRM<T> P(N, N);
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += N;
    T m = -inf_of<T>();
    for (int j = 0; j < N; ++j) m = std::max(m, S(i, j));
    T l = T(0);
    for (int j = 0; j < N; ++j) {
      P(i, j) = p_of(S(i, j), m);
      l = l + P(i, j);
    }
    for (int j = 0; j < N; ++j) P(i, j) = P(i, j) / l;
    rec.io().flops += 4ull * N;
    rec.io().exps += N;
    rec.io().hbm_writes += N;
    rec.recording().m[i] = to_double(m);
    rec.recording().l[i] = to_double(l);
    if (rec.on()) {
      a.write_block(bP, i, 0, P.middleRows(i, 1));
      rec.write(bm, i, 0, to_double(m));
      rec.write(bl, i, 0, to_double(l));
      Step st;
      st.pass = 2, st.line = 2, st.row = i;
      st.label = strf("P row %d", i + 1);
      st.text = strf("row %d: m = max S%s = %s, l = sum exp(S%s - m) = %s, P%s = exp(S%s - m) / l = %s",
                     i + 1, sub(i + 1).c_str(), num(to_double(m)).c_str(), sub(i + 1).c_str(),
                     num(to_double(l)).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.list(P.middleRows(i, 1)).c_str());
      st.reads = {a.rows_of(bS, i, 1, N)};
      st.writes = {a.rows_of(bP, i, 1, N), {bm, i, 0, i + 1, 1}, {bl, i, 0, i + 1, 1}};
      rec.commit(std::move(st));
    }
  }
  // Kernel 3: O = P V. V is read once, with the first row.
  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += static_cast<std::uint64_t>(N) + (i == 0 ? static_cast<std::uint64_t>(N) * d : 0);
    const MatRM<T> Pi = P.middleRows(i, 1);
    const MatRM<T> Oi = mul_ab<T>(Pi, a.V);
    rec.io().flops += 2ull * N * d;
    rec.io().hbm_writes += d;
    a.set_output(i, Oi);
    if (rec.on()) {
      a.write_block(a.bO, i, 0, Oi);
      Step st;
      st.pass = 3, st.line = 3, st.row = i;
      st.label = strf("O row %d", i + 1);
      st.text = strf("O%s = P%s V = %s, written to HBM", sub(i + 1).c_str(), sub(i + 1).c_str(),
                     a.list(Oi).c_str());
      st.reads = {a.rows_of(bP, i, 1, N), a.rows_of(a.bV, 0, N, d)};
      st.writes = {a.rows_of(a.bO, i, 1, d)};
      rec.commit(std::move(st));
    }
  }
}

template <class T>
void attn_online(const Resolved& r, Recorder& rec) {
  AttnRun<T> a(r, rec);
  const int N = a.N, d = a.d;
  const int bS = rec.add_buffer({"S", N, N, Space::reg, "each score s = q_i . k_j * scale as it is computed"});
  const int bm = rec.add_buffer({"m", N, 1, Space::reg, "running max of the scores of row i"});
  const int bl = rec.add_buffer({"l", N, 1, Space::reg, "running sum of exp(s - m) of row i"});
  const int bacc = rec.add_buffer({"O_acc", N, d, Space::reg, "unnormalized output o of row i, rescaled as m grows"});
  auto& names = rec.recording().pass_names;
  for (int i = 0; i < N; ++i) names.push_back(strf("query row %d", i + 1));

  for (int i = 0; i < N; ++i) {
    rec.io().hbm_reads += d;  // q_i
    T m = -inf_of<T>(), l = T(0);
    MatRM<T> o = MatRM<T>::Zero(1, d);
    if (rec.on()) {
      rec.write(bm, i, 0, -std::numeric_limits<double>::infinity());
      rec.write(bl, i, 0, 0.0);
      a.write_block(bacc, i, 0, o);
    }
    const int last = a.causal ? i : N - 1;
    for (int j = 0; j <= last; ++j) {
      rec.io().hbm_reads += 2ull * d;  // k_j, v_j
      const T sc = a.scores(i, 1, j, 1)(0, 0);
      const T m_new = std::max(m, sc);
      const T f = exp(m - m_new);
      const T e = p_of(sc, m_new);
      for (int c = 0; c < d; ++c) o(0, c) = o(0, c) * f + e * a.V(j, c);
      const T l_old = l, m_old = m;
      l = l * f + e;
      m = m_new;
      rec.io().flops += 3ull * d + 6;
      rec.io().exps += 2;
      if (rec.on()) {
        rec.write(bS, i, j, to_double(sc));
        rec.write(bm, i, 0, to_double(m));
        rec.write(bl, i, 0, to_double(l));
        a.write_block(bacc, i, 0, o);
        Step st;
        st.pass = i + 1, st.line = 4, st.line_end = 7, st.row = i;
        st.label = strf("q%d . k%d", i + 1, j + 1);
        st.text = strf("s = q%s . k%s = %s;  m = max(%s, %s) = %s;  ", sub(i + 1).c_str(),
                       sub(j + 1).c_str(), num(to_double(sc)).c_str(), num(to_double(m_old)).c_str(),
                       num(to_double(sc)).c_str(), num(to_double(m)).c_str());
        if (to_double(m) != to_double(m_old) && l_old != T(0))
          st.text += strf("o and l rescaled by exp(%s - %s) = %s;  ", num(to_double(m_old)).c_str(),
                          num(to_double(m)).c_str(), num(to_double(f)).c_str());
        st.text += strf("l = %s * %s + %s = %s;  o += %s v%s", num(to_double(l_old)).c_str(),
                        num(to_double(f)).c_str(), num(to_double(e)).c_str(), num(to_double(l)).c_str(),
                        num(to_double(e)).c_str(), sub(j + 1).c_str());
        st.reads = {a.rows_of(a.bQ, i, 1, d), a.rows_of(a.bK, j, 1, d), a.rows_of(a.bV, j, 1, d)};
        st.writes = {{bS, i, j, i + 1, j + 1}, {bm, i, 0, i + 1, 1}, {bl, i, 0, i + 1, 1},
                     a.rows_of(bacc, i, 1, d)};
        rec.commit(std::move(st));
      }
    }
    // O_i = o / l: the only division, once per row.
    MatRM<T> Oi(1, d);
    for (int c = 0; c < d; ++c) Oi(0, c) = o(0, c) / l;
    rec.io().flops += d;
    rec.io().hbm_writes += d;
    a.set_output(i, Oi);
    rec.recording().m[i] = to_double(m);
    rec.recording().l[i] = to_double(l);
    if (rec.on()) {
      a.write_block(a.bO, i, 0, Oi);
      Step st;
      st.pass = i + 1, st.line = 9, st.row = i;
      st.label = strf("O row %d", i + 1);
      st.text = strf("O%s = o / l = o / %s = %s, written to HBM", sub(i + 1).c_str(),
                     num(to_double(l)).c_str(), a.list(Oi).c_str());
      st.reads = {a.rows_of(bacc, i, 1, d), {bl, i, 0, i + 1, 1}};
      st.writes = {a.rows_of(a.bO, i, 1, d)};
      rec.commit(std::move(st));
    }
  }
}

// Rows of a tile: their own max, exp and sum (the "~" quantities of the paper).
template <class T>
struct TileSoftmax {
  std::vector<T> m_tilde, l_tilde;
  MatRM<T> P;
};

// FlashAttention-1: outer loop over K/V blocks j, inner loop over Q blocks i; m, l and O_i
// live in HBM and are read and written back at every inner step.
template <class T>
void attn_tiled(const Resolved& r, Recorder& rec) {
  AttnRun<T> a(r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const int bS = rec.add_buffer({"S", N, N, Space::sram, "S_ij tiles as computed on chip (never in HBM)"});
  const int bP = rec.add_buffer({"P", N, N, Space::sram, "P~_ij = exp(S_ij - m~_ij) tiles as computed on chip"});
  const int bm = rec.add_buffer({"m", N, 1, Space::hbm, "running max m_i of each row, kept in HBM"});
  const int bl = rec.add_buffer({"l", N, 1, Space::hbm, "running sum l_i of each row, kept in HBM"});
  auto& names = rec.recording().pass_names;
  for (int j = 0; j < Tc; ++j) names.push_back(strf("K/V block j = %d", j + 1));

  // Line 2: O = 0, l = 0, m = −inf in HBM.
  MatRM<T> O = MatRM<T>::Zero(N, d);
  std::vector<T> m(static_cast<std::size_t>(N), -inf_of<T>()), l(static_cast<std::size_t>(N), T(0));
  for (int i = 0; i < N; ++i) {
    rec.init(bm, i, 0, -std::numeric_limits<double>::infinity());
    rec.init(bl, i, 0, 0.0);
    for (int c = 0; c < d; ++c) rec.init(a.bO, i, c, 0.0);
  }

  for (int j = 0; j < Tc; ++j) {
    const int c0 = j * Bc, bc = std::min(Bc, N - c0);
    bool kv_loaded = false;
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      if (a.causal && c0 > r0 + br - 1) continue;  // every score of the tile is masked
      auto& io = rec.io();
      if (!kv_loaded) {  // line 6: K_j, V_j stay in SRAM for the whole inner loop
        io.hbm_reads += 2ull * bc * d;
        io.sram_writes += 2ull * bc * d;
        kv_loaded = true;
      }
      // Line 8: Q_i, O_i, l_i, m_i from HBM.
      io.hbm_reads += 2ull * br * d + 2ull * br;
      io.sram_writes += 2ull * br * d + 2ull * br;
      // Line 9: S_ij = Q_i K_jᵀ · s.
      const MatRM<T> S = a.scores(r0, br, c0, bc);
      io.sram_reads += static_cast<std::uint64_t>(br + bc) * d;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      // Line 10: m̃_ij, P̃_ij, l̃_ij of the tile alone.
      MatRM<T> P(br, bc);
      std::vector<T> mt(static_cast<std::size_t>(br)), lt(static_cast<std::size_t>(br));
      for (int a_ = 0; a_ < br; ++a_) {
        T mx = -inf_of<T>();
        for (int b = 0; b < bc; ++b) mx = std::max(mx, S(a_, b));
        T sum = T(0);
        for (int b = 0; b < bc; ++b) {
          P(a_, b) = p_of(S(a_, b), mx);
          sum = sum + P(a_, b);
        }
        mt[a_] = mx;
        lt[a_] = sum;
      }
      io.flops += 3ull * br * bc;
      io.exps += static_cast<std::uint64_t>(br) * bc;
      io.sram_reads += 3ull * br * bc;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      // Lines 11-13: merge with the running (m_i, l_i), rescale O_i, write all back.
      const MatRM<T> PV = mul_ab<T>(P, a.V.middleRows(c0, bc));
      io.flops += 2ull * br * bc * d;
      io.sram_reads += static_cast<std::uint64_t>(br) * bc + static_cast<std::uint64_t>(bc) * d;
      T m_first_old = m[r0], l_first_old = l[r0];
      for (int a_ = 0; a_ < br; ++a_) {
        const int row = r0 + a_;
        const T m_new = std::max(m[row], mt[a_]);
        const T f_old = exp(m[row] - m_new), f_tile = exp(mt[a_] - m_new);
        const T l_new = f_old * l[row] + f_tile * lt[a_];
        for (int c = 0; c < d; ++c)
          O(row, c) = (l[row] * f_old * O(row, c) + f_tile * PV(a_, c)) / l_new;
        m[row] = m_new;
        l[row] = l_new;
      }
      io.flops += 6ull * br + 5ull * br * d;
      io.exps += 2ull * br;
      io.sram_reads += static_cast<std::uint64_t>(br) * d;
      io.hbm_writes += static_cast<std::uint64_t>(br) * d + 2ull * br;
      if (rec.on()) {
        a.write_block(bS, r0, c0, S);
        a.write_block(bP, r0, c0, P);
        a.write_block(a.bO, r0, 0, O.middleRows(r0, br));
        for (int a_ = 0; a_ < br; ++a_) {
          rec.write(bm, r0 + a_, 0, to_double(m[r0 + a_]));
          rec.write(bl, r0 + a_, 0, to_double(l[r0 + a_]));
        }
        Step st;
        st.pass = j + 1, st.line = 8, st.line_end = 13, st.tile_i = i, st.tile_j = j;
        st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
        st.text = strf("tile (i=%d, j=%d): S%d%d = Q%s K%s^T is %dx%d on chip. Row %d: m~ = %s, "
                       "m_new = max(%s, %s) = %s, l_new = exp(%s - %s) * %s + exp(%s - %s) * %s = %s; "
                       "O%s, l%s, m%s written back to HBM",
                       i + 1, j + 1, i + 1, j + 1, sub(i + 1).c_str(), sub(j + 1).c_str(), br, bc,
                       r0 + 1, num(to_double(mt[0])).c_str(), num(to_double(m_first_old)).c_str(),
                       num(to_double(mt[0])).c_str(), num(to_double(m[r0])).c_str(),
                       num(to_double(m_first_old)).c_str(), num(to_double(m[r0])).c_str(),
                       num(to_double(l_first_old)).c_str(), num(to_double(mt[0])).c_str(),
                       num(to_double(m[r0])).c_str(), num(to_double(lt[0])).c_str(),
                       num(to_double(l[r0])).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str(),
                       sub(i + 1).c_str());
        st.reads = {{a.bK, c0, 0, c0 + bc, d}, {a.bV, c0, 0, c0 + bc, d}, {a.bQ, r0, 0, r0 + br, d},
                    {a.bO, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
        st.writes = {{bS, r0, c0, r0 + br, c0 + bc}, {bP, r0, c0, r0 + br, c0 + bc},
                     {a.bO, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
        rec.commit(std::move(st));
      }
    }
  }
  a.set_output(0, O);
  for (int i = 0; i < N; ++i) {
    rec.recording().m[i] = to_double(m[i]);
    rec.recording().l[i] = to_double(l[i]);
  }
}

// FlashAttention-2: outer loop over Q blocks i, inner over K/V blocks j. m_i, l_i and the
// unnormalized O_i stay on chip for the whole inner loop; O_i is divided by l_i once at the
// end and written with L_i = m_i + log l_i.
template <class T>
void attn_tiled_v2(const Resolved& r, Recorder& rec) {
  AttnRun<T> a(r, rec);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const int bS = rec.add_buffer({"S", N, N, Space::sram, "S_ij tiles as computed on chip (never in HBM)"});
  const int bP = rec.add_buffer({"P", N, N, Space::sram, "P~_ij = exp(S_ij - m_i(j)) tiles as computed on chip"});
  const int bm = rec.add_buffer({"m", N, 1, Space::sram, "running max m_i, on chip"});
  const int bl = rec.add_buffer({"l", N, 1, Space::sram, "running sum l_i, on chip"});
  const int bacc = rec.add_buffer({"O_acc", N, d, Space::sram, "unnormalized O_i(j), on chip"});
  const int bL = rec.add_buffer({"LSE", N, 1, Space::hbm, "L_i = m_i + log l_i, written to HBM for the backward pass"});
  auto& names = rec.recording().pass_names;
  for (int i = 0; i < Tr; ++i) names.push_back(strf("Q block i = %d", i + 1));
  rec.recording().lse.assign(static_cast<std::size_t>(N), 0.0);

  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    auto& io = rec.io();
    // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
    io.hbm_reads += static_cast<std::uint64_t>(br) * d;
    io.sram_writes += static_cast<std::uint64_t>(br) * d;
    MatRM<T> Oacc = MatRM<T>::Zero(br, d);
    std::vector<T> m(static_cast<std::size_t>(br), -inf_of<T>()), l(static_cast<std::size_t>(br), T(0));
    if (rec.on())
      for (int a_ = 0; a_ < br; ++a_) {
        rec.write(bm, r0 + a_, 0, -std::numeric_limits<double>::infinity());
        rec.write(bl, r0 + a_, 0, 0.0);
        for (int c = 0; c < d; ++c) rec.write(bacc, r0 + a_, c, 0.0);
      }
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      if (a.causal && c0 > r0 + br - 1) break;  // this and every later tile is fully masked
      // Line 6: K_j, V_j into SRAM.
      io.hbm_reads += 2ull * bc * d;
      io.sram_writes += 2ull * bc * d;
      // Line 7: S_ij.
      const MatRM<T> S = a.scores(r0, br, c0, bc);
      io.sram_reads += static_cast<std::uint64_t>(br + bc) * d;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      // Lines 8-9: new running max, P̃ against it, rescaled running sum.
      MatRM<T> P(br, bc);
      std::vector<T> f(static_cast<std::size_t>(br));
      const T m_first_old = m[0], l_first_old = l[0];
      for (int a_ = 0; a_ < br; ++a_) {
        T mx = m[a_];
        for (int b = 0; b < bc; ++b) mx = std::max(mx, S(a_, b));
        T sum = T(0);
        for (int b = 0; b < bc; ++b) {
          P(a_, b) = p_of(S(a_, b), mx);
          sum = sum + P(a_, b);
        }
        f[a_] = exp(m[a_] - mx);
        l[a_] = f[a_] * l[a_] + sum;
        m[a_] = mx;
      }
      io.flops += 3ull * br * bc + 4ull * br;
      io.exps += static_cast<std::uint64_t>(br) * bc + br;
      io.sram_reads += 3ull * br * bc;
      io.sram_writes += static_cast<std::uint64_t>(br) * bc;
      // Line 10: O_i(j) = diag(exp(m_i(j-1) - m_i(j))) O_i(j-1) + P̃_ij V_j, no division yet.
      const MatRM<T> PV = mul_ab<T>(P, a.V.middleRows(c0, bc));
      for (int a_ = 0; a_ < br; ++a_)
        for (int c = 0; c < d; ++c) Oacc(a_, c) = f[a_] * Oacc(a_, c) + PV(a_, c);
      io.flops += 2ull * br * bc * d + 2ull * br * d;
      io.sram_reads += static_cast<std::uint64_t>(br) * bc + static_cast<std::uint64_t>(bc) * d;
      if (rec.on()) {
        a.write_block(bS, r0, c0, S);
        a.write_block(bP, r0, c0, P);
        a.write_block(bacc, r0, 0, Oacc);
        for (int a_ = 0; a_ < br; ++a_) {
          rec.write(bm, r0 + a_, 0, to_double(m[a_]));
          rec.write(bl, r0 + a_, 0, to_double(l[a_]));
        }
        Step st;
        st.pass = i + 1, st.line = 6, st.line_end = 10, st.tile_i = i, st.tile_j = j;
        st.label = strf("tile (i=%d, j=%d)", i + 1, j + 1);
        st.text = strf("tile (i=%d, j=%d): K%s, V%s loaded, S%d%d is %dx%d on chip. Row %d: m = max(%s, "
                       "rowmax S) = %s, l = exp(%s - %s) * %s + rowsum P~ = %s; O_i rescaled by %s "
                       "and P~V added, not yet divided",
                       i + 1, j + 1, sub(j + 1).c_str(), sub(j + 1).c_str(), i + 1, j + 1, br, bc,
                       r0 + 1, num(to_double(m_first_old)).c_str(), num(to_double(m[0])).c_str(),
                       num(to_double(m_first_old)).c_str(), num(to_double(m[0])).c_str(),
                       num(to_double(l_first_old)).c_str(), num(to_double(l[0])).c_str(),
                       num(to_double(f[0])).c_str());
        st.reads = {{a.bK, c0, 0, c0 + bc, d}, {a.bV, c0, 0, c0 + bc, d}, {a.bQ, r0, 0, r0 + br, d}};
        st.writes = {{bS, r0, c0, r0 + br, c0 + bc}, {bP, r0, c0, r0 + br, c0 + bc},
                     {bacc, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
        rec.commit(std::move(st));
      }
    }
    // Lines 11-13: divide once, log-sum-exp, write O_i and L_i.
    MatRM<T> Oi(br, d);
    for (int a_ = 0; a_ < br; ++a_) {
      for (int c = 0; c < d; ++c) Oi(a_, c) = Oacc(a_, c) / l[a_];
      const T L = m[a_] + log(l[a_]);
      rec.recording().lse[r0 + a_] = to_double(L);
      rec.recording().m[r0 + a_] = to_double(m[a_]);
      rec.recording().l[r0 + a_] = to_double(l[a_]);
      if (rec.on()) rec.write(bL, r0 + a_, 0, to_double(L));
    }
    io.flops += static_cast<std::uint64_t>(br) * d + 2ull * br;
    io.sram_reads += static_cast<std::uint64_t>(br) * d + 2ull * br;
    io.hbm_writes += static_cast<std::uint64_t>(br) * d + br;
    a.set_output(r0, Oi);
    if (rec.on()) {
      a.write_block(a.bO, r0, 0, Oi);
      Step st;
      st.pass = i + 1, st.line = 11, st.line_end = 13, st.tile_i = i;
      st.label = strf("write O%d, L%d", i + 1, i + 1);
      st.text = strf("Q block %d done: O%s = diag(l)^-1 O_acc (row %d: divided by l = %s once), "
                     "L = m + log l = %s; O%s and L%s written to HBM",
                     i + 1, sub(i + 1).c_str(), r0 + 1, num(to_double(l[0])).c_str(),
                     num(rec.recording().lse[r0]).c_str(), sub(i + 1).c_str(), sub(i + 1).c_str());
      st.reads = {{bacc, r0, 0, r0 + br, d}, {bm, r0, 0, r0 + br, 1}, {bl, r0, 0, r0 + br, 1}};
      st.writes = {{a.bO, r0, 0, r0 + br, d}, {bL, r0, 0, r0 + br, 1}};
      rec.commit(std::move(st));
    }
  }
}

}  // namespace

#define FLASHSTEP_DISPATCH(name)                                                  \
  void record_##name(const Resolved& r, Recorder& rec) {                          \
    with_scalar(r.scenario.precision, [&](auto zero) { name<decltype(zero)>(r, rec); }); \
  }
FLASHSTEP_DISPATCH(attn_naive)
FLASHSTEP_DISPATCH(attn_online)
FLASHSTEP_DISPATCH(attn_tiled)
FLASHSTEP_DISPATCH(attn_tiled_v2)
#undef FLASHSTEP_DISPATCH

}  // namespace flashstep
