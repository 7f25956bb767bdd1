// The fast attention kernels (core/fast.h): materialized (one SGEMM for S, one for O), and
// FlashAttention-1 and -2 over tiles, with their register-blocked micro-kernels for a tile's two
// products and the exponentials of a score tile in place.
#include "core/fast_kernels.h"

#include <memory>
#include <type_traits>
#include <vector>

namespace flashstep::fast {
namespace {

// exp(x − m) of a tile's scores, m at least every x of the row (its running max, or 0 for a row
// that has seen only −∞): vexp_scaled with s = 1, exactly vexp's values (a −∞ score weighs
// exactly 0; a NaN stays NaN) in fewer operations.
struct TileExp {
  explicit TileExp(float m) : pm(ei::pset1<Packet>(m)), k(exp_consts(1.0f, kScaledBias)) {}
  Packet operator()(const Packet x) const { return vexp_scaled(ei::psub(x, pm), k); }
  Packet pm;
  ExpConsts k;
};

// Replaces every s_i by exp(s_i − m) and returns their sum: the exponentials and the row sum
// of a score tile in one sweep. A −∞ score weighs exactly 0; a NaN stays NaN.
float exp_sum_in_place(float* s, std::int64_t n, float m) {
  const TileExp exp_of(m);
  Packet acc0 = ei::pset1<Packet>(0.0f), acc1 = acc0;
  std::int64_t i = 0;
  for (; i + 2 * kP <= n; i += 2 * kP) {
    const Packet e0 = exp_of(ei::ploadu<Packet>(s + i)), e1 = exp_of(ei::ploadu<Packet>(s + i + kP));
    ei::pstoreu(s + i, e0);
    ei::pstoreu(s + i + kP, e1);
    acc0 = ei::padd(acc0, e0);
    acc1 = ei::padd(acc1, e1);
  }
  for (; i + kP <= n; i += kP) {
    const Packet e = exp_of(ei::ploadu<Packet>(s + i));
    ei::pstoreu(s + i, e);
    acc0 = ei::padd(acc0, e);
  }
  float sum = ei::predux(ei::padd(acc0, acc1));
  for (; i < n; ++i) {
    s[i] = std::exp(s[i] - m);
    sum += s[i];
  }
  return sum;
}

// s_i ← exp(s_i − m) for a tile row: FlashAttention-1's exponentials, with the same vector exp
// as FlashAttention-2's, so that the two differ in their loop order only.
void exp_in_place(float* s, std::int64_t n, float m) {
  const TileExp exp_of(m);
  std::int64_t i = 0;
  for (; i + kP <= n; i += kP) ei::pstoreu(s + i, exp_of(ei::ploadu<Packet>(s + i)));
  for (; i < n; ++i) s[i] = std::exp(s[i] - m);
}

// ---- register-blocked micro-kernels for a tile's two products -------------------------------
// What Eigen's GEMM does for any shape, less what a tile does not need: Q_i and P~_ij are read in
// place (each of their numbers is broadcast against a vector of keys or of O's columns), V_j's
// rows are already the vectors P·V wants, and only K_j is repacked, transposed, once per tile.
// A block of MR rows × NG (or NC) vectors of the result stays in registers for the whole depth.
// The sizes are chosen for the vector width the build compiles for (fast::vector_floats()):
//  - AVX-512, 32 registers of 16 floats: S in 6 rows × 4 vectors of keys (24 accumulators, 4
//    vectors of K_j), O in 6 rows × 4 vectors of its columns (24 + 4): 10 loads for 24
//    multiply-adds. S's block was 8 rows × 2 vectors (10 loads for 16) until 2026-12-03: on the
//    Intel Xeon of BENCHMARKS.md (model 167) S = Q_i K_jᵀ of a 256 × 128 tile in cache ran at
//    152–160 GFLOP/s a core with it, 161–173 with 6 × 4.
//  - AVX2+FMA (8 floats) and SSE2 (4 floats), 16 registers: S in 6 rows × 2 vectors (12 + 2 +
//    the broadcast number of Q_i), O in 6 rows × 2 vectors (12 + 2 + 1). Two vectors of O split
//    d = 64 and 128 into whole blocks at both widths; three (the AVX-512 shape cut down) left
//    single vectors over at d = 64 (8 vectors: 3 + 3 + 1 + 1), each a block of 3 accumulators
//    that waits on its loads.
// Rows left over below MR (a tile of 128 rows in blocks of 6) go through one block of their own
// count, not row by row.
constexpr bool kWideRegisters = kP == 16;
constexpr int kQkRows = 6;                         // S = Q_i K_jᵀ: MR rows × NG vectors of keys
constexpr int kQkVectors = kWideRegisters ? 4 : 2;
constexpr int kPvRows = 6;                         // O_i += P V_j: MR rows × NC vectors of O's columns
constexpr int kPvVectors = kWideRegisters ? 4 : 2;
static_assert(kQkRows <= 8 && kPvRows <= 8, "with_rows() takes leftovers of up to 7 rows");

// Calls f(std::integral_constant<int, n>) for 1 ≤ n ≤ 7: the leftover rows of a tile as one block.
template <class F>
void with_rows(int n, F&& f) {
  switch (n) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    case 6: f(std::integral_constant<int, 6>{}); break;
    case 7: f(std::integral_constant<int, 7>{}); break;
    default: break;
  }
}

// How many vectors hold n floats (the last one padded).
int vectors_for(int n) { return (n + static_cast<int>(kP) - 1) / static_cast<int>(kP); }
// Whether the micro-kernels take this d: O's rows in whole vectors.
bool micro_kernels_fit(int d) { return d % kP == 0; }

// K_j (bc rows of d, d a multiple of the vector width) as KT[g][k][lane] = K_j[g·kP + lane][k],
// zero past bc: vector g of a row of S is then Σ_k Q[a][k] · KT[g][k]. Square blocks of kP keys
// × kP columns are loaded as vectors and transposed in registers.
void pack_keys(const float* K, int bc, int d, float* KT) {
  constexpr int W = static_cast<int>(kP);
  for (int g = 0; g < vectors_for(bc); ++g) {
    const int rows = std::min(W, bc - g * W);
    for (int k = 0; k < d; k += W) {
      ei::PacketBlock<Packet, W> block;
      for (int r = 0; r < W; ++r)
        block.packet[r] = r < rows ? ei::ploadu<Packet>(K + static_cast<std::size_t>(g * W + r) * d + k)
                                   : ei::pset1<Packet>(0.0f);
      ei::ptranspose(block);
      for (int j = 0; j < W; ++j) ei::pstoreu(KT + (static_cast<std::size_t>(g) * d + k + j) * W, block.packet[j]);
    }
  }
}

// S[a][g0·kP …] for MR rows of Q (row stride d) and NG vectors of keys from g0.
template <int MR, int NG>
void qk_block(const float* Q, int d, const float* KT, float* S, int ldS, int g0) {
  // Every loop over the block unrolled, so that the accumulators live in registers throughout:
  // rolled up, GCC zeroes them in memory, and stores and reloads them around the depth loop.
  Packet acc[MR][NG];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int g = 0; g < NG; ++g) acc[r][g] = ei::pset1<Packet>(0.0f);
  const float* b = KT + static_cast<std::size_t>(g0) * d * kP;
  for (int k = 0; k < d; ++k) {
    Packet keys[NG];
#pragma GCC unroll 4
    for (int g = 0; g < NG; ++g) keys[g] = ei::ploadu<Packet>(b + (static_cast<std::size_t>(g) * d + k) * kP);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const Packet q = ei::pset1<Packet>(Q[static_cast<std::size_t>(r) * d + k]);
#pragma GCC unroll 4
      for (int g = 0; g < NG; ++g) acc[r][g] = ei::pmadd(q, keys[g], acc[r][g]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int g = 0; g < NG; ++g) ei::pstoreu(S + static_cast<std::size_t>(r) * ldS + (g0 + g) * kP, acc[r][g]);
}

template <int MR>
void qk_rows(const float* Q, int d, const float* KT, int groups, float* S, int ldS) {
  int g = 0;
  for (; g + kQkVectors <= groups; g += kQkVectors) qk_block<MR, kQkVectors>(Q, d, KT, S, ldS, g);
  if constexpr (kQkVectors > 2)  // a partial tile's vectors left over: pairs first
    for (; g + 2 <= groups; g += 2) qk_block<MR, 2>(Q, d, KT, S, ldS, g);
  for (; g < groups; ++g) qk_block<MR, 1>(Q, d, KT, S, ldS, g);
}

// The columns a block of `rows` tile rows from row a needs: all bc, or with `ends` (the count of
// keys each row of a partial tile sees, visible_end) the most of its rows'. Under the causal mask
// the tile on the diagonal is then computed up to the diagonal, not through its masked corner.
int block_cols(const int* ends, int a, int rows, int bc) {
  if (!ends) return bc;
  return *std::max_element(ends + a, ends + a + rows);
}

// S (br × bc rounded up to whole vectors, row stride ldS) = Q (br × d, row stride d) · K_jᵀ, K_j
// packed by pack_keys; with `ends`, each block of rows only up to the keys its rows see (the
// scores past them are left as they were).
void qk_tile(const float* Q, int br, int d, const float* KT, int bc, float* S, int ldS, const int* ends = nullptr) {
  int a = 0;
  for (; a + kQkRows <= br; a += kQkRows)
    qk_rows<kQkRows>(Q + static_cast<std::size_t>(a) * d, d, KT, vectors_for(block_cols(ends, a, kQkRows, bc)),
                     S + static_cast<std::size_t>(a) * ldS, ldS);
  with_rows(br - a, [&](auto mr) {
    qk_rows<decltype(mr)::value>(Q + static_cast<std::size_t>(a) * d, d, KT, vectors_for(block_cols(ends, a, mr, bc)),
                                 S + static_cast<std::size_t>(a) * ldS, ldS);
  });
}

// O[a][c0 …] += Σ_k P[a][k] · V[k][c0 …] for MR rows and NC vectors of O's columns.
template <int MR, int NC>
void pv_block(const float* P, int ldP, const float* V, int d, int bc, float* O, int c0) {
  Packet acc[MR][NC];  // in registers throughout, as qk_block's
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) acc[r][j] = ei::ploadu<Packet>(O + static_cast<std::size_t>(r) * d + c0 + j * kP);
  for (int k = 0; k < bc; ++k) {
    Packet v[NC];
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) v[j] = ei::ploadu<Packet>(V + static_cast<std::size_t>(k) * d + c0 + j * kP);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const Packet p = ei::pset1<Packet>(P[static_cast<std::size_t>(r) * ldP + k]);
#pragma GCC unroll 4
      for (int j = 0; j < NC; ++j) acc[r][j] = ei::pmadd(p, v[j], acc[r][j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) ei::pstoreu(O + static_cast<std::size_t>(r) * d + c0 + j * kP, acc[r][j]);
}

template <int MR>
void pv_rows(const float* P, int ldP, const float* V, int d, int bc, float* O) {
  int c = 0;
  for (; c + kPvVectors * kP <= d; c += kPvVectors * static_cast<int>(kP)) pv_block<MR, kPvVectors>(P, ldP, V, d, bc, O, c);
  for (; c + kP <= d; c += static_cast<int>(kP)) pv_block<MR, 1>(P, ldP, V, d, bc, O, c);
}

// O (br × d, row stride d) += P (br × bc, row stride ldP) · V_j (bc × d, row stride d); d a
// multiple of the vector width. With `ends`, each block of rows only over the keys its rows see
// (P is 0 past them).
void pv_tile(const float* P, int ldP, int br, const float* V, int d, int bc, float* O, const int* ends = nullptr) {
  int a = 0;
  for (; a + kPvRows <= br; a += kPvRows)
    pv_rows<kPvRows>(P + static_cast<std::size_t>(a) * ldP, ldP, V, d, block_cols(ends, a, kPvRows, bc),
                     O + static_cast<std::size_t>(a) * d);
  with_rows(br - a, [&](auto mr) {
    pv_rows<decltype(mr)::value>(P + static_cast<std::size_t>(a) * ldP, ldP, V, d, block_cols(ends, a, mr, bc),
                                 O + static_cast<std::size_t>(a) * d);
  });
}

// Row `row` of a partial tile, keys [c0, c0 + bc), its scores at s: the scores before the row's
// first visible key become −∞ (they add exp(−∞) = 0), and the count up to its last visible key
// is returned, the columns the softmax takes (those after it are left out).
int visible_len(const Mask& mask, int row, int c0, int bc, float* s) {
  const Mask::KeyRange k = mask.keys(row);
  const int len = std::clamp(k.end - c0, 0, bc);
  std::fill(s, s + std::clamp(k.begin - c0, 0, len), kNegInf);
  return len;
}

// The count of keys [c0, c0 + bc) up to the last one row `row` sees: visible_len's, before S
// is computed, for the micro-kernels' `ends`. Nullptr for a full tile (every row sees all bc).
const int* visible_ends(const Mask& mask, TileKind kind, int r0, int br, int c0, int bc, std::vector<int>& ends) {
  if (kind == TileKind::full) return nullptr;
  for (int a = 0; a < br; ++a) ends[static_cast<std::size_t>(a)] = std::clamp(mask.keys(r0 + a).end - c0, 0, bc);
  return ends.data();
}

}  // namespace

// The snake deal of Q blocks to threads, beside the tiled kernel that deals them.
// Forwards in even rounds, backwards in odd ones, from the last block down.
int snake_block(int round, int t, int T, int Tr) {
  const int k = round * T + (round % 2 == 0 ? t : T - 1 - t);
  return k < Tr ? Tr - 1 - k : -1;
}

void attention_naive(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, MatRM<float>& O, float* m_out, float* l_out) {
  const Eigen::Index N = Q.rows();
  // S = scale·QKᵀ: one SGEMM (Eigen runs it on every core), N × N in memory.
  MatRM<float> S(N, N);
  const Workspace::Hold held_s(static_cast<std::int64_t>(sizeof(float)) * N * N);
  S.noalias() = scale * Q * K.transpose();
  MatRM<float> P(N, N);
  const Workspace::Hold held_p(static_cast<std::int64_t>(sizeof(float)) * N * N);
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < N; ++i) {
    // Only the keys the row sees count: the masked scores would contribute exp(−∞) = 0.
    const Mask::KeyRange keys = mask.keys(static_cast<int>(i));
    const std::int64_t b = keys.begin, len = keys.size();
    const float* s = S.row(i).data() + b;
    const float m0 = len ? max_of(s, len) : kNegInf;
    const ML ml = settle(m0, len ? row_sum(s, len, m0) : kInitL);
    const float m = ml.m, l = ml.l;
    if (l == 0.0f) {
      P.row(i).setZero();  // no finite score: no probability mass, O = 0
    } else {
      const float inv_l = 1.0f / l;  // NaN when the row has a NaN or a +∞ score: so is P
      float* p = P.row(i).data() + b;
      const Packet pm = ei::pset1<Packet>(m);
      const ExpConsts scaled = exp_consts(inv_l, kScaledBias);  // exp(s − m)/l, as softmax's output pass
      std::int64_t k = 0;
      for (; k + kP <= len; k += kP) ei::pstoreu(p + k, vexp_scaled(ei::psub(ei::ploadu<Packet>(s + k), pm), scaled));
      for (; k < len; ++k) p[k] = std::exp(s[k] - m) * inv_l;
      if (b > 0) P.row(i).head(b).setZero();
      if (b + len < N) P.row(i).tail(N - b - len).setZero();
    }
    keep_ml(m_out, l_out, i, m, l);
  }
  O.resize(N, Q.cols());
  O.noalias() = P * V;
}

void attention_tiled_v2(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                        const Mask& mask, int Br, int Bc, MatRM<float>& O, std::vector<float>* lse, float* m_out,
                        float* l_out, const TiledOptions& opt) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const int Tr = (N + Br - 1) / Br, Tc = (N + Bc - 1) / Bc;
  O.resize(N, d);
  if (lse) lse->assign(static_cast<std::size_t>(N), 0.0f);
  // The micro-kernels take O's rows in whole vectors; another d goes through Eigen's GEMM.
  const bool micro = opt.micro_kernels && micro_kernels_fit(d);
  const int ldS = vectors_for(Bc) * static_cast<int>(kP);
#pragma omp parallel
  {
    // Per thread, on chip in the paper's model: Q_i (pre-scaled), S_ij / P~_ij, O_i, m_i, l_i.
    // S's rows are padded to whole vectors, and the micro-kernels' K_j is packed beside it.
    MatRM<float> Qi(Br, d), S(Br, ldS), Oi(Br, d), KT(micro ? ldS : 0, d);
    Eigen::ArrayXf m(Br), l(Br), tile_m(Br);
    std::vector<int> ends(static_cast<std::size_t>(Br)), lens(static_cast<std::size_t>(Br));
    const Workspace::Hold held(static_cast<std::int64_t>(sizeof(float)) *
                                   (2LL * Br * d + 1LL * Br * ldS + 3LL * Br + KT.size()) +
                               static_cast<std::int64_t>(sizeof(int)) * 2 * Br);
    // Row a of S_ij (its first `len` scores count, their max tile_max) becomes P~_ij's, and m_i,
    // l_i, O_i follow. Every row's max is taken first, in a loop of its own: the rows' maxima do
    // not wait on each other, and each row's exponentials then find theirs ready (FA-2 at
    // N = 4096, d = 64 and 128, 2–3% faster on the Xeon of BENCHMARKS.md, and FA-1 does the same).
    auto softmax_row = [&](int a, int len, int bc, float tile_max) {
      float* s = S.row(a).data();
      const float m_new = nan_max(m[a], tile_max);
      float tile_sum = 0.0f;
      if (m_new == kNegInf) {
        std::fill(s, s + len, 0.0f);  // only −∞ so far: the tile adds nothing
      } else if (!opt.vector_exp) {
        for (int c = 0; c < len; ++c) tile_sum += s[c] = std::exp(s[c] - m_new);
      } else if (!opt.fused_exp_sum) {
        exp_in_place(s, len, m_new);
        tile_sum = S.row(a).head(len).sum();  // a second sweep
      } else {
        tile_sum = exp_sum_in_place(s, len, m_new);
      }
      if (len < bc) std::fill(s + len, s + bc, 0.0f);
      // The old sum and O row are rescaled when the max moved (exp(0) = 1 otherwise). While the
      // row has seen only −∞ scores, exp is taken against 0 (FlashAttention's guard): the
      // factor is exp(−∞) = 0 instead of exp(−∞ + ∞) = NaN.
      if (!opt.lazy_rescale || m_new != m[a] || !std::isfinite(m_new)) {
        const float f = std::exp(m[a] - (m_new == kNegInf ? 0.0f : m_new));
        l[a] *= f;
        Oi.row(a) *= f;
      }
      l[a] += tile_sum;
      m[a] = m_new;
    };
    auto row_block = [&](int i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      Qi.topRows(br) = scale * Q.middleRows(r0, br);
      Oi.topRows(br).setConstant(kInitO);
      m.head(br).setConstant(kInitM);
      l.head(br).setConstant(kInitL);
      for (int j = 0; j < Tc; ++j) {
        const int c0 = j * Bc, bc = std::min(Bc, N - c0);
        const TileKind kind = mask.tile(r0, br, c0, bc);
        if (kind == TileKind::empty) continue;  // every score of the tile is masked
        auto Sij = S.topLeftCorner(br, bc);
        const int* row_ends = micro ? visible_ends(mask, kind, r0, br, c0, bc, ends) : nullptr;
        if (micro) {
          pack_keys(K.row(c0).data(), bc, d, KT.data());
          qk_tile(Qi.data(), br, d, KT.data(), bc, S.data(), ldS, row_ends);
        } else {
          Sij.noalias() = Qi.topRows(br) * K.middleRows(c0, bc).transpose();
        }
        // In a partial tile only the keys a row sees count: those before them are set to −∞,
        // those after them left out (its first `len` columns).
        for (int a = 0; a < br; ++a) {
          const int len = kind == TileKind::full ? bc : visible_len(mask, r0 + a, c0, bc, S.row(a).data());
          lens[static_cast<std::size_t>(a)] = len;
          tile_m[a] = len ? max_of(S.row(a).data(), len) : kNegInf;
        }
        for (int a = 0; a < br; ++a) softmax_row(a, lens[static_cast<std::size_t>(a)], bc, tile_m[a]);
        if (micro)
          pv_tile(S.data(), ldS, br, V.row(c0).data(), d, bc, Oi.data(), row_ends);
        else
          Oi.topRows(br).noalias() += Sij * V.middleRows(c0, bc);
      }
      for (int a = 0; a < br; ++a) {
        if (l[a] == 0.0f)
          O.row(r0 + a).setZero();  // no finite score: O = 0, and L = −∞ + log 0 = −∞
        else
          O.row(r0 + a) = Oi.row(a) / l[a];
        const ML ml = settle(m[a], l[a]);
        if (lse) (*lse)[static_cast<std::size_t>(r0 + a)] = ml.m + std::log(ml.l);
        keep_ml(m_out, l_out, r0 + a, ml.m, ml.l);
      }
    };
#ifdef _OPENMP
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int t = 0, T = 1;
#endif
    switch (opt.schedule) {
      case TiledOptions::Schedule::snake:
        for (int round = 0; round * T < Tr; ++round)
          if (const int i = snake_block(round, t, T, Tr); i >= 0) row_block(i);
        break;
      case TiledOptions::Schedule::dynamic:
#pragma omp for schedule(dynamic, 1) nowait
        for (int k = 0; k < Tr; ++k) row_block(Tr - 1 - k);  // the costliest first
        break;
      case TiledOptions::Schedule::contiguous:
        for (int i = static_cast<int>(part_begin(Tr, T, t)); i < part_begin(Tr, T, t + 1); ++i) row_block(i);
        break;
    }
  }
}

void attention_tiled(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, int Br, int Bc, MatRM<float>& O, float* m_out, float* l_out) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const int Tr = (N + Br - 1) / Br, Tc = (N + Bc - 1) / Bc;
  O.setConstant(N, d, kInitO);
  // The running m and l of every row live in HBM between tiles: the caller's m_out and l_out
  // when given (outputs), else buffers of our own (workspace).
  std::vector<float> m_own, l_own;
  std::unique_ptr<Workspace::Hold> held_ml;
  if (!m_out || !l_out) {
    m_own.resize(static_cast<std::size_t>(N));
    l_own.resize(static_cast<std::size_t>(N));
    held_ml = std::make_unique<Workspace::Hold>(static_cast<std::int64_t>(sizeof(float)) * 2 * N);
  }
  float* m = m_out && l_out ? m_out : m_own.data();
  float* l = m_out && l_out ? l_out : l_own.data();
  std::fill(m, m + N, kInitM);
  std::fill(l, l + N, kInitL);
  // The same micro-kernels as FA-2 (K_j packed once per K block by each thread that uses it).
  const bool micro = micro_kernels_fit(d);
  const int ldS = vectors_for(Bc) * static_cast<int>(kP);
#pragma omp parallel
  {
    MatRM<float> S(Br, ldS), PV(Br, d), KT(micro ? ldS : 0, d);
    Eigen::ArrayXf mt(Br), lt(Br);
    // A partial tile's visible_ends, and every row's count of keys (lens).
    std::vector<int> ends(static_cast<std::size_t>(Br)), lens(static_cast<std::size_t>(Br));
    const Workspace::Hold held(static_cast<std::int64_t>(sizeof(float)) *
                                   (1LL * Br * ldS + 1LL * Br * d + 2LL * Br + KT.size()) +
                               static_cast<std::int64_t>(sizeof(int)) * 2 * Br);
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      bool packed = false;
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < Tr; ++i) {
        const int r0 = i * Br, br = std::min(Br, N - r0);
        const TileKind kind = mask.tile(r0, br, c0, bc);
        if (kind == TileKind::empty) continue;  // every score of the tile is masked
        auto Sij = S.topLeftCorner(br, bc);
        const int* row_ends = micro ? visible_ends(mask, kind, r0, br, c0, bc, ends) : nullptr;
        if (micro) {
          if (!packed) pack_keys(K.row(c0).data(), bc, d, KT.data());
          packed = true;
          qk_tile(Q.row(r0).data(), br, d, KT.data(), bc, S.data(), ldS, row_ends);
          Sij *= scale;
        } else {
          Sij.noalias() = scale * Q.middleRows(r0, br) * K.middleRows(c0, bc).transpose();
        }
        for (int a = 0; a < br; ++a) {  // every row's max first, as FA-2's
          const int len = kind == TileKind::full ? bc : visible_len(mask, r0 + a, c0, bc, S.row(a).data());
          lens[static_cast<std::size_t>(a)] = len;
          mt[a] = len ? max_of(S.row(a).data(), len) : kNegInf;
        }
        for (int a = 0; a < br; ++a) {
          const int len = lens[static_cast<std::size_t>(a)];
          auto p = S.row(a).head(len).array();
          if (mt[a] == kNegInf)
            p.setZero();  // a tile row of only −∞ scores adds nothing
          else
            exp_in_place(S.row(a).data(), len, mt[a]);
          if (len < bc) S.row(a).segment(len, bc - len).setZero();
          lt[a] = p.sum();
        }
        if (micro) {
          PV.topRows(br).setZero();
          pv_tile(S.data(), ldS, br, V.row(c0).data(), d, bc, PV.data(), row_ends);
        } else {
          PV.topRows(br).noalias() = Sij * V.middleRows(c0, bc);
        }
        for (int a = 0; a < br; ++a) {
          const std::size_t row = static_cast<std::size_t>(r0 + a);
          const float m_new = nan_max(m[row], mt[a]);
          const float base = m_new == kNegInf ? 0.0f : m_new;  // the −∞ guard, as above
          const float f_old = std::exp(m[row] - base);
          const float f_tile = mt[a] == kNegInf ? 0.0f : std::exp(mt[a] - base);
          const float l_new = f_old * l[row] + f_tile * lt[a];
          if (l_new == 0.0f)
            O.row(r0 + a).setZero();
          else
            O.row(r0 + a) = (l[row] * f_old * O.row(r0 + a) + f_tile * PV.row(a)) / l_new;
          m[row] = m_new;
          l[row] = l_new;
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) {
    const ML ml = settle(m[i], l[i]);
    m[i] = ml.m;
    if (m != m_out || l != l_out) keep_ml(m_out, l_out, i, ml.m, ml.l);
  }
}

}  // namespace flashstep::fast
