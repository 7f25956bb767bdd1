// The attention engines: attn-naive, attn-online, attn-tiled (FlashAttention-1) and
// attn-tiled-v2 (FlashAttention-2), in the scalar type T of the chosen precision.
//
// Shapes: Q, K, V, O are N × d; S = Q Kᵀ · s and P = softmax(S) are N × N; tiles Q_i are
// Br × d, K_j and V_j are Bc × d, S_ij and P̃_ij are Br × Bc. All row-major. The last block of
// each kind may be smaller when N is not a multiple of Br or Bc. What each step says, counts and
// writes is in narration_attention.cpp, shared with the GPU backend.
#include "core/attention_math.h"
#include "core/engine.h"
#include "core/initial_state.h"
#include "core/mask.h"
#include "core/narration_attention.h"
#include "core/workspace.h"

#include <algorithm>
#include <cmath>

namespace flashstep {
namespace {

using namespace attention_math;
using std::exp;
using std::log;

// P_kept: where the backward wants P as this forward left it in HBM (exact in doubles), or null.
template <class T>
void attn_naive(const Resolved& r, Recorder& rec, MatrixRM* P_kept = nullptr) {
  AttnNaiveNarration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N;

  // Kernel 1: S = Q Kᵀ · s, written to HBM (N² writes).
  MatRM<T> S(N, N);
  const Workspace::Hold held_s(static_cast<std::int64_t>(sizeof(T)) * N * N);
  for (int i = 0; i < N; ++i) {
    S.row(i) = a.scores(i, 1, 0, N);
    say.scores_row(i, rows(S, i, 1));
  }
  // Kernel 2: P = softmax(S), one row at a time (safe softmax in registers), P written to HBM.
  MatRM<T> P(N, N);
  const Workspace::Hold held_p(static_cast<std::int64_t>(sizeof(T)) * N * N);
  for (int i = 0; i < N; ++i) {
    T m = initial_state().m_as<T>();
    for (int j = 0; j < N; ++j) m = nan_max(m, S(i, j));
    T l = initial_state().l_as<T>();
    for (int j = 0; j < N; ++j) {
      P(i, j) = p_of(S(i, j), m);
      l = l + P(i, j);
    }
    // A row with no finite score has no probability mass: P = 0 (and O = 0), not 0/0.
    for (int j = 0; j < N; ++j) P(i, j) = l == T(0) ? T(0) : P(i, j) / l;
    say.softmax_row(i, to_double(m), to_double(l), rows(P, i, 1));
  }
  // Kernel 3: O = P V.
  for (int i = 0; i < N; ++i) {
    const MatRM<T> Pi = P.middleRows(i, 1);
    const MatRM<T> Oi = mul_ab<T>(Pi, a.V);
    say.output_row(i, rows(Oi));
  }
  if (P_kept) *P_kept = P.unaryExpr([](T v) { return to_double(v); });
}

template <class T>
void attn_online(const Resolved& r, Recorder& rec) {
  AttnOnlineNarration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N, d = a.d;
  for (int i = 0; i < N; ++i) {
    say.start_row(i);
    T m = initial_state().m_as<T>(), l = initial_state().l_as<T>();
    MatRM<T> o = MatRM<T>::Constant(1, d, initial_state().o_as<T>());
    const Mask::KeyRange keys = a.mask.keys(i);  // the keys row i sees
    for (int j = keys.begin; j < keys.end; ++j) {
      const T sc = a.scores(i, 1, j, 1)(0, 0);
      const T m_new = nan_max(m, sc);
      // Against exp_base(m_new): while every score so far is −∞, 0 instead of −∞, so the
      // factor is exp(−∞) = 0 rather than exp(−∞ + ∞) = NaN.
      const T f = exp(m - exp_base(m_new));
      const T e = p_of(sc, exp_base(m_new));
      for (int c = 0; c < d; ++c) o(0, c) = o(0, c) * f + e * a.V(j, c);
      const T l_old = l, m_old = m;
      l = l * f + e;
      m = m_new;
      say.key(i, j, {to_double(sc), to_double(m_old), to_double(l_old), to_double(m), to_double(l),
                     to_double(f), to_double(e)},
              rows(o));
    }
    // O_i = o / l: the only division, once per row; a row with no finite score is 0.
    MatRM<T> Oi(1, d);
    for (int c = 0; c < d; ++c) Oi(0, c) = l == T(0) ? T(0) : o(0, c) / l;
    say.finish_row(i, to_double(m), to_double(l), rows(Oi));
  }
}

// FlashAttention-1: outer loop over K/V blocks j, inner loop over Q blocks i; m, l and O_i
// live in HBM and are read and written back at every inner step.
template <class T>
void attn_tiled(const Resolved& r, Recorder& rec) {
  AttnTiledNarration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;

  // Line 2: O = 0, l = 0, m = −inf in HBM.
  const InitialState init = initial_state();
  MatRM<T> O = MatRM<T>::Constant(N, d, init.o_as<T>());
  std::vector<T> m(static_cast<std::size_t>(N), init.m_as<T>()), l(static_cast<std::size_t>(N), init.l_as<T>());
  for (int j = 0; j < Tc; ++j) {
    const int c0 = j * Bc, bc = std::min(Bc, N - c0);
    bool kv_loaded = false;  // line 6: K_j, V_j stay in SRAM for the whole inner loop
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      if (a.mask.tile(r0, br, c0, bc) == TileKind::empty) continue;  // every score of the tile is masked
      // Line 8: Q_i, O_i, l_i, m_i from HBM. Line 9: S_ij = Q_i K_jᵀ · s.
      const MatRM<T> S = a.scores(r0, br, c0, bc);
      // Line 10: m̃_ij, P̃_ij, l̃_ij of the tile alone.
      MatRM<T> P(br, bc);
      const Workspace::Hold held(static_cast<std::int64_t>(sizeof(T)) * 2 * br * bc);
      std::vector<T> mt(static_cast<std::size_t>(br)), lt(static_cast<std::size_t>(br));
      for (int a_ = 0; a_ < br; ++a_) {
        T mx = init.m_as<T>();  // m̃ and l̃ of the tile alone start where every running (m, l) does
        for (int b = 0; b < bc; ++b) mx = nan_max(mx, S(a_, b));
        T sum = init.l_as<T>();
        for (int b = 0; b < bc; ++b) {
          P(a_, b) = p_of(S(a_, b), exp_base(mx));
          sum = sum + P(a_, b);
        }
        mt[a_] = mx;
        lt[a_] = sum;
      }
      // Lines 11-13: merge with the running (m_i, l_i), rescale O_i, write all back.
      const MatRM<T> PV = mul_ab<T>(P, a.V.middleRows(c0, bc));
      TileRowNumbers first{to_double(m[r0]), to_double(l[r0]), 0, 0};
      for (int a_ = 0; a_ < br; ++a_) {
        const int row = r0 + a_;
        const T m_new = nan_max(m[row], mt[a_]);
        // exp_base: a row or tile that has seen only −∞ scores rescales by exp(−∞) = 0.
        const T f_old = exp(m[row] - exp_base(m_new)), f_tile = exp(mt[a_] - exp_base(m_new));
        const T l_new = f_old * l[row] + f_tile * lt[a_];
        for (int c = 0; c < d; ++c)
          O(row, c) = l_new == T(0) ? T(0) : (l[row] * f_old * O(row, c) + f_tile * PV(a_, c)) / l_new;
        m[row] = m_new;
        l[row] = l_new;
      }
      first.m = to_double(m[r0]), first.l = to_double(l[r0]);
      first.m_tilde = to_double(mt[0]), first.l_tilde = to_double(lt[0]);
      say.tile(i, j, !kv_loaded, first, rows(S), rows(P), rows(O, r0, br), column(m, r0, br),
               column(l, r0, br));
      kv_loaded = true;
    }
  }
  say.finish(rows(O), column(m, 0, N), column(l, 0, N));
}

// FlashAttention-2: outer loop over Q blocks i, inner over K/V blocks j. m_i, l_i and the
// unnormalized O_i stay on chip for the whole inner loop; O_i is divided by l_i once at the
// end and written with L_i = m_i + log l_i.
template <class T>
void attn_tiled_v2(const Resolved& r, Recorder& rec) {
  AttnTiledV2Narration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    // Lines 3-4: Q_i into SRAM; O_i, l_i, m_i start on chip.
    say.start_block(i);
    const InitialState init = initial_state();
    MatRM<T> Oacc = MatRM<T>::Constant(br, d, init.o_as<T>());
    std::vector<T> m(static_cast<std::size_t>(br), init.m_as<T>()), l(static_cast<std::size_t>(br), init.l_as<T>());
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      if (a.mask.tile(r0, br, c0, bc) == TileKind::empty) continue;  // every score of the tile is masked
      // Line 6: K_j, V_j into SRAM. Line 7: S_ij.
      const MatRM<T> S = a.scores(r0, br, c0, bc);
      // Lines 8-9: new running max, P̃ against it, rescaled running sum.
      MatRM<T> P(br, bc);
      const Workspace::Hold held(static_cast<std::int64_t>(sizeof(T)) * 2 * br * bc);
      std::vector<T> f(static_cast<std::size_t>(br));
      TileRowNumbers first{to_double(m[0]), to_double(l[0]), 0, 0};
      for (int a_ = 0; a_ < br; ++a_) {
        T mx = m[a_];
        for (int b = 0; b < bc; ++b) mx = nan_max(mx, S(a_, b));
        T sum = T(0);
        for (int b = 0; b < bc; ++b) {
          P(a_, b) = p_of(S(a_, b), exp_base(mx));
          sum = sum + P(a_, b);
        }
        // exp_base: while the row has seen only −∞ scores the factor is exp(−∞) = 0, not NaN.
        f[a_] = exp(m[a_] - exp_base(mx));
        l[a_] = f[a_] * l[a_] + sum;
        m[a_] = mx;
      }
      // Line 10: O_i(j) = diag(exp(m_i(j-1) - m_i(j))) O_i(j-1) + P̃_ij V_j, no division yet.
      const MatRM<T> PV = mul_ab<T>(P, a.V.middleRows(c0, bc));
      for (int a_ = 0; a_ < br; ++a_)
        for (int c = 0; c < d; ++c) Oacc(a_, c) = f[a_] * Oacc(a_, c) + PV(a_, c);
      first.m = to_double(m[0]), first.l = to_double(l[0]), first.factor = to_double(f[0]);
      say.tile(i, j, first, rows(S), rows(P), rows(Oacc), column(m, 0, br), column(l, 0, br));
    }
    // Lines 11-13: divide once, log-sum-exp, write O_i and L_i.
    MatRM<T> Oi(br, d);
    std::vector<T> L(static_cast<std::size_t>(br));
    for (int a_ = 0; a_ < br; ++a_) {
      // A row with no finite score: O = 0 and L = −∞ + log 0 = −∞.
      for (int c = 0; c < d; ++c) Oi(a_, c) = l[a_] == T(0) ? T(0) : Oacc(a_, c) / l[a_];
      L[a_] = m[a_] + log(l[a_]);
    }
    say.finish_block(i, rows(Oi), column(m, 0, br), column(l, 0, br), column(L, 0, br));
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

void record_attn_naive(const Resolved& r, Recorder& rec, MatrixRM& P) {
  with_scalar(r.scenario.precision, [&](auto zero) { attn_naive<decltype(zero)>(r, rec, &P); });
}

}  // namespace flashstep
