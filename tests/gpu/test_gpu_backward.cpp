// The backward shaders on their own terms: dQ, dK, dV and D of the GPU against a long-double
// reference written plainly here (the analytic gradients of softmax(s·Q Kᵀ) V), element by
// element within the bounds tests/tolerance_backward.h derives from the format and the problem;
// fp32, fp16 and bf16, causal and not, scaled and not, Br ≠ Bc and N a multiple of neither.
#include "../tolerance.h"
#include "core/engine.h"
#include "core/heads.h"
#include "core/timed_run.h"
#include "gpu/backward_run.h"
#include "gpu_context.h"

#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

using LD = long double;
using Mat = std::vector<std::vector<LD>>;

// The exact gradients of O = softmax(s·Q Kᵀ + mask) V for the upstream gradient dO.
struct Exact {
  Mat O, dQ, dK, dV;
  std::vector<LD> D, L;
};
Exact exact_gradients(const MatrixRM& Q, const MatrixRM& K, const MatrixRM& V, const MatrixRM& dO, LD s, bool causal) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  Exact x{Mat(N, std::vector<LD>(d, 0)), Mat(N, std::vector<LD>(d, 0)), Mat(N, std::vector<LD>(d, 0)),
          Mat(N, std::vector<LD>(d, 0)), std::vector<LD>(N, 0), std::vector<LD>(N, 0)};
  Mat P(N, std::vector<LD>(N, 0)), dP(N, std::vector<LD>(N, 0)), dS(N, std::vector<LD>(N, 0));
  for (int i = 0; i < N; ++i) {
    const int keys = causal ? i + 1 : N;
    std::vector<LD> S(keys);
    LD m = -INFINITY;
    for (int j = 0; j < keys; ++j) {
      LD dot = 0;
      for (int k = 0; k < d; ++k) dot += static_cast<LD>(Q(i, k)) * K(j, k);
      S[j] = s * dot;
      m = std::fmax(m, S[j]);
    }
    LD l = 0;
    for (int j = 0; j < keys; ++j) l += std::exp(S[j] - m);
    x.L[i] = m + std::log(l);
    for (int j = 0; j < keys; ++j) P[i][j] = std::exp(S[j] - m) / l;
    for (int j = 0; j < keys; ++j)
      for (int c = 0; c < d; ++c) x.O[i][c] += P[i][j] * V(j, c);
  }
  // dV = Pᵀ dO; dP = dO Vᵀ; D = rowsum(dO ∘ O); dS = P ∘ (dP − D); dQ = s·dS K; dK = s·dSᵀ Q.
  for (int i = 0; i < N; ++i) {
    for (int c = 0; c < d; ++c) x.D[i] += static_cast<LD>(dO(i, c)) * x.O[i][c];
    for (int j = 0; j < N; ++j) {
      for (int c = 0; c < d; ++c) dP[i][j] += static_cast<LD>(dO(i, c)) * V(j, c);
      dS[i][j] = P[i][j] * (dP[i][j] - x.D[i]);
    }
  }
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < d; ++c) {
        x.dV[j][c] += P[i][j] * dO(i, c);
        x.dK[j][c] += s * dS[i][j] * Q(i, c);
        x.dQ[i][c] += s * dS[i][j] * K(j, c);
      }
  return x;
}

// The bounds of two computations of the same gradients, each within its own.
tolerance::GradBound operator+(const tolerance::GradBound& a, const tolerance::GradBound& b) {
  tolerance::GradBound s{a.dq + b.dq, a.dk + b.dk, a.dv + b.dv, a.D, a.D_from_P};
  for (std::size_t i = 0; i < s.D.size(); ++i) s.D[i] += b.D[i], s.D_from_P[i] += b.D_from_P[i];
  return s;
}

struct Case {
  Precision p = Precision::fp32;
  int N = 37, d = 8, Br = 5, Bc = 7;
  bool causal = false;
  ScaleMode scale = ScaleMode::none;
};

std::string name(const Case& c) {
  return std::string(precision_name(c.p)) + " N=" + std::to_string(c.N) + " d=" + std::to_string(c.d) +
         " Br=" + std::to_string(c.Br) + " Bc=" + std::to_string(c.Bc) + (c.causal ? " causal" : "") +
         (c.scale == ScaleMode::inv_sqrt_d ? " 1/sqrt(d)" : "");
}

Resolved resolved(const Case& c, bool flash) {
  Scenario s;
  s.algorithm = flash ? Algorithm::attn_flash_backward : Algorithm::attn_backward;
  s.precision = c.p;
  s.n = c.N;
  s.d = c.d;
  s.causal = c.causal;
  s.scale_mode = c.scale;
  s.block_rows = c.Br;
  s.block_cols = c.Bc;
  s.seed = 5;
  return resolve(s);
}

std::vector<float> floats(const MatrixRM& m) {
  std::vector<float> out;
  for (Eigen::Index k = 0; k < m.size(); ++k) out.push_back(static_cast<float>(m.data()[k]));
  return out;
}

// Every element of `got` (N × d floats) within its bound of the exact value; returns the worst
// observed / limit.
double check_matrix(const char* what, const std::vector<float>& got, const Mat& want, const MatrixRM& bound) {
  CAPTURE(what);
  const int N = static_cast<int>(want.size()), d = static_cast<int>(want[0].size());
  REQUIRE(got.size() == static_cast<std::size_t>(N) * d);
  double worst = 0;
  int failed = 0;
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < d; ++c) {
      const double diff = std::fabs(got[static_cast<std::size_t>(i) * d + c] - static_cast<double>(want[i][c]));
      worst = std::max(worst, diff / bound(i, c));
      if (!(diff <= bound(i, c)) && failed++ < 3)
        CHECK_MESSAGE(diff <= bound(i, c), what << "(" << i << ", " << c << ") = " << got[static_cast<std::size_t>(i) * d + c]
                                               << ", exact " << static_cast<double>(want[i][c]) << ", bound " << bound(i, c));
    }
  CHECK(failed == 0);
  return worst;
}

void check_case(const Case& c, bool flash) {
  CAPTURE(name(c));
  CAPTURE(flash);
  const Resolved r = resolved(c, flash);
  gpu_test::engine();  // the context
  gpu::Kernels kernels;
  const gpu::BackwardNumbers got = gpu::backward_numbers(kernels, r, floats(r.d_o), flash);
  const Exact x = exact_gradients(r.q, r.k, r.v, r.d_o, static_cast<LD>(r.scale), c.causal);
  const tolerance::GradBound b = tolerance::attention_grads(r, tolerance::Exp::glsl);
  const double q = check_matrix("dQ", got.dQ, x.dQ, b.dq);
  const double k = check_matrix("dK", got.dK, x.dK, b.dk);
  const double v = check_matrix("dV", got.dV, x.dV, b.dv);
  double dmax = 0;
  for (int i = 0; i < c.N; ++i) {
    const double diff = std::fabs(got.D[i] - static_cast<double>(x.D[i]));
    dmax = std::max(dmax, diff / b.D[i]);
    CHECK(diff <= b.D[i]);
    // The standard backward's second way to D, rowsum(P ∘ dP): the same number.
    if (!flash) CHECK(std::fabs(got.D_from_P[i] - static_cast<double>(x.D[i])) <= b.D_from_P[i]);
  }
  if (c.p == Precision::fp32) {
    // The bounds mean something: in fp32 they stay below a hundredth of the largest gradient.
    double biggest = 0;
    for (const auto& row : x.dQ)
      for (LD e : row) biggest = std::max(biggest, std::fabs(static_cast<double>(e)));
    CHECK(b.dq.maxCoeff() < 1e-2 * biggest);
  }
  MESSAGE(name(c) << std::string(flash ? " flash" : " standard") << ": worst observed / limit: dQ " << q << ", dK " << k << ", dV "
                  << v << ", D " << dmax);
}

}  // namespace

TEST_CASE("the GPU's backward gradients equal the analytic gradients, fp32, Br != Bc, N a multiple of neither") {
  for (bool flash : {false, true})
    for (bool causal : {false, true})
      for (ScaleMode scale : {ScaleMode::none, ScaleMode::inv_sqrt_d}) {
        Case c;
        c.causal = causal;
        c.scale = scale;
        check_case(c, flash);
      }
}

TEST_CASE("the GPU's backward gradients at d = 64 and blocks larger than one tile row (fp32, N = 130)") {
  for (bool flash : {false, true})
    for (bool causal : {false, true}) {
      Case c{Precision::fp32, 130, 64, 16, 48, causal, ScaleMode::inv_sqrt_d};
      check_case(c, flash);
    }
}

TEST_CASE("the GPU's backward gradients in fp16 and bf16 are within their formats' bounds") {
  for (Precision p : {Precision::fp16, Precision::bf16})
    for (bool flash : {false, true})
      for (bool causal : {false, true}) {
        Case c{p, 24, 4, 5, 3, causal, ScaleMode::inv_sqrt_d};
        check_case(c, flash);
      }
}

// ---- the GPU's recordings against the CPU's ---------------------------------------------------

namespace {

MatrixRM as_matrix(const Mat& m) {
  MatrixRM out(static_cast<Eigen::Index>(m.size()), static_cast<Eigen::Index>(m[0].size()));
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t c = 0; c < m[0].size(); ++c) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = static_cast<double>(m[i][c]);
  return out;
}

// Every element of `got` within `bound` of `want`; returns the worst observed / limit.
double within(const char* what, const MatrixRM& got, const MatrixRM& want, const MatrixRM& bound) {
  CAPTURE(what);
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  const MatrixRM ratio = (got - want).cwiseAbs().cwiseQuotient(bound);
  CHECK(ratio.maxCoeff() <= 1.0);
  return ratio.maxCoeff();
}

// One backward row on both backends, steps kept or not: the same steps, IO and buffers (as every
// row in test_gpu_vs_cpu.cpp), and dQ, dK, dV, D within the CPU's bound plus the GPU's of each
// other, and the GPU's within its own bound of the analytic gradients.
void check_recordings(Algorithm algo, const Case& c, bool keep_steps) {
  CAPTURE(std::string(algorithm_id(algo)));
  CAPTURE(name(c));
  CAPTURE(keep_steps);
  Scenario s;
  s.algorithm = algo;
  s.precision = c.p;
  s.n = c.N;
  s.d = c.d;
  s.causal = c.causal;
  s.scale_mode = c.scale;
  s.block_rows = c.Br;
  s.block_cols = c.Bc;
  s.seed = 9;
  const Resolved r = resolve(s);
  RecordOptions opt;
  opt.keep_steps = keep_steps;
  const Recording cpu = record(r, opt);
  const Recording gpu = gpu_test::engine().record(r, opt);
  const CompareReport rep = compare(cpu, gpu);
  CHECK(rep.mismatch == "");
  CHECK(cpu.io == gpu.io);
  CHECK(cpu.step_count() == gpu.step_count());
  const tolerance::GradBound g = tolerance::attention_grads(r, tolerance::Exp::glsl);
  const tolerance::GradBound both = g + tolerance::attention_grads(r, tolerance::Exp::cpu);
  const Exact x = exact_gradients(r.q, r.k, r.v, r.d_o, static_cast<LD>(r.scale), c.causal);
  const char* names[] = {"dq", "dk", "dv"};
  const MatrixRM* bounds_both[] = {&both.dq, &both.dk, &both.dv};
  const MatrixRM* bounds_gpu[] = {&g.dq, &g.dk, &g.dv};
  const Mat* exact[] = {&x.dQ, &x.dK, &x.dV};
  for (int k = 0; k < 3; ++k) {
    const MatrixRM* a = cpu.results.find_matrix(names[k]) ? &cpu.results.find_matrix(names[k])->values : nullptr;
    const MatrixRM* b = gpu.results.find_matrix(names[k]) ? &gpu.results.find_matrix(names[k])->values : nullptr;
    REQUIRE(a);
    REQUIRE(b);
    const double between = within(names[k], *b, *a, *bounds_both[k]);
    const double to_exact = within(names[k], *b, as_matrix(*exact[k]), *bounds_gpu[k]);
    MESSAGE(algorithm_id(algo) << " " << name(c) << " " << names[k] << ": observed / limit against the CPU " << between
                               << ", against the analytic gradients " << to_exact);
  }
  const RowResult* Dc = cpu.results.find_row("D");
  const RowResult* Dg = gpu.results.find_row("D");
  REQUIRE(Dc);
  REQUIRE(Dg);
  for (int i = 0; i < c.N; ++i) CHECK(std::fabs(Dg->values[i] - Dc->values[i]) <= both.D[i]);
}

}  // namespace

TEST_CASE("the GPU's backward recordings equal the CPU's step by step, and their gradients within the bounds") {
  for (Algorithm a : {Algorithm::attn_backward, Algorithm::attn_flash_backward})
    for (bool causal : {false, true})
      for (bool keep_steps : {true, false}) check_recordings(a, {Precision::fp32, 37, 8, 5, 7, causal, ScaleMode::inv_sqrt_d}, keep_steps);
}

TEST_CASE("the GPU's backward recordings in fp16 and bf16, unscaled, equal the CPU's") {
  for (Precision p : {Precision::fp16, Precision::bf16})
    for (Algorithm a : {Algorithm::attn_backward, Algorithm::attn_flash_backward})
      check_recordings(a, {p, 24, 4, 3, 5, true, ScaleMode::none}, true);
}

TEST_CASE("the flash backward's dQ, dK and dV on the GPU equal the CPU's after every step, dQ_i after each tile as the paper has it") {
  // The GPU sums dQ in a pass of its own, j ascending: its dQ_i after tile (i, j) is the paper's
  // (Algorithm 2 adds s · dS_ij K_j into dQ_i in HBM, j outer), so every step's picture is.
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    Scenario s;
    s.algorithm = Algorithm::attn_flash_backward;
    s.n = 29;
    s.d = 8;
    s.causal = causal;
    s.scale_mode = ScaleMode::inv_sqrt_d;
    s.block_rows = 6;
    s.block_cols = 4;
    s.seed = 4;
    const Resolved r = resolve(s);
    const Recording cpu = record(r, RecordOptions{});
    const Recording gpu = gpu_test::engine().record(r, RecordOptions{});
    REQUIRE(cpu.step_count() == gpu.step_count());
    REQUIRE(cpu.buffers.size() == gpu.buffers.size());
    const tolerance::GradBound both =
        tolerance::attention_grads(r, tolerance::Exp::glsl) + tolerance::attention_grads(r, tolerance::Exp::cpu);
    struct Grad {
      const char* name;
      const MatrixRM& bound;
      int buffer = -1;
    };
    Grad grads[] = {{"dQ", both.dq}, {"dK", both.dk}, {"dV", both.dv}};
    for (Grad& g : grads)
      for (std::size_t b = 0; b < cpu.buffers.size(); ++b)
        if (cpu.buffers[b].name == g.name) g.buffer = static_cast<int>(b);
    Cursor a(cpu), b(gpu);
    long long cells = 0;
    double worst = 0;
    for (int k = 0; k < cpu.step_count(); ++k) {
      a.seek(k);
      b.seek(k);
      for (const Grad& g : grads) {
        REQUIRE(g.buffer >= 0);
        for (int i = 0; i < r.n; ++i)
          for (int c = 0; c < r.d; ++c) {
            CHECK(a.defined(g.buffer, i, c) == b.defined(g.buffer, i, c));
            if (!a.defined(g.buffer, i, c)) continue;
            const double diff = std::fabs(a.value(g.buffer, i, c) - b.value(g.buffer, i, c));
            worst = std::max(worst, diff / g.bound(i, c));
            ++cells;
            if (diff > g.bound(i, c)) {
              CAPTURE(k);
              CAPTURE(g.name);
              CHECK(diff <= g.bound(i, c));
            }
          }
      }
    }
    CHECK(cells > 0);
    MESSAGE("every step's dQ, dK, dV: " << cells << " cells, worst observed / limit " << worst);
  }
}

TEST_CASE("several heads of the backward on the GPU (--heads, --steps none): each head's gradients equal the CPU's, and differ from the others'") {
  for (Algorithm a : {Algorithm::attn_backward, Algorithm::attn_flash_backward}) {
    CAPTURE(std::string(algorithm_id(a)));
    Scenario s;
    s.algorithm = a;
    s.n = 33;
    s.d = 8;
    s.causal = true;
    s.scale_mode = ScaleMode::inv_sqrt_d;
    s.block_rows = 8;
    s.block_cols = 5;
    s.seed = 12;
    const Resolved r = resolve(s);
    const int H = 3, N = r.n;
    RecordOptions opt;
    opt.keep_steps = false;
    // The forward's heads of the same seed and shape first: the engine keeps the heads' inputs
    // between runs, and the backward's must come with their dO.
    Scenario forward = s;
    forward.algorithm = *info(a).runs_after;
    gpu_test::engine().record(resolve(forward), opt, H);
    const Recording gpu = gpu_test::engine().record(r, opt, H);
    const Recording cpu = run_timed_heads(r, H, 1, true).rec;
    REQUIRE(gpu.heads == H);
    for (const char* g : {"dq", "dk", "dv"}) {
      CAPTURE(g);
      const MatrixResult* G = gpu.results.find_matrix(g);
      const MatrixResult* C = cpu.results.find_matrix(g);
      REQUIRE(G);
      REQUIRE(C);
      REQUIRE(G->values.rows() == static_cast<Eigen::Index>(H) * N);
      REQUIRE(C->values.rows() == G->values.rows());
      for (int h = 0; h < H; ++h) {
        CAPTURE(h);
        const Resolved head = h == 0 ? r : resolve_head(r, h);
        const tolerance::GradBound both =
            tolerance::attention_grads(head, tolerance::Exp::glsl) + tolerance::attention_grads(head, tolerance::Exp::cpu);
        const MatrixRM& bound = std::string(g) == "dq" ? both.dq : std::string(g) == "dk" ? both.dk : both.dv;
        within(g, G->values.middleRows(static_cast<Eigen::Index>(h) * N, N), C->values.middleRows(static_cast<Eigen::Index>(h) * N, N),
               bound);
        // A shader that ignored the head (or a dO drawn once for all heads) would repeat head 0.
        if (h > 0)
          CHECK((G->values.middleRows(static_cast<Eigen::Index>(h) * N, N) - G->values.topRows(N)).cwiseAbs().maxCoeff() >
                100 * bound.maxCoeff());
      }
    }
  }
}

TEST_CASE("the backward's refusals: the standard one's N × N matrices at N = 65536, H = 16, the flash one's SRAM tiles") {
  Scenario s;
  s.algorithm = Algorithm::attn_flash_backward;
  s.n = 65536;
  s.d = 64;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  CHECK(gpu_test::engine().unsupported(resolve(s), false, 16) == "");
  s.algorithm = Algorithm::attn_backward;
  const std::string why = gpu_test::engine().unsupported(resolve(s), false, 16);
  CHECK(why.find("S, P, dP and dS of every head") != std::string::npos);
  CHECK(why.find("1.0 TiB (1100 GB)") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
  // Q_i and dO_i of 128 rows at d = 64 take 64 KiB, more than the 32 KiB GL 4.3 promises and
  // llvmpipe gives; the forward's K_j, V_j of 16 keys fit.
  Scenario t;
  t.algorithm = Algorithm::attn_flash_backward;
  t.n = 256;
  t.d = 64;
  t.block_rows = 128;
  t.block_cols = 16;
  const Resolved r = resolve(t);
  const std::string tiles = gpu_test::engine().unsupported(r, true, 1);
  if (gpu::query_limits().max_shared_bytes < 2LL * 128 * 64 * 4) {
    CHECK(tiles.find("Qᵢ and dOᵢ tiles") != std::string::npos);
    CHECK(tiles.find("--block-rows") != std::string::npos);
  } else {
    CHECK(tiles == "");
  }
}

TEST_CASE("the flash backward's dQ on the GPU is the same to the bit from run to run (a pass of its own, no atomic adds)") {
  Scenario s;
  s.algorithm = Algorithm::attn_flash_backward;
  s.n = 200;
  s.d = 16;
  s.block_rows = 8;
  s.block_cols = 8;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = resolve(s);
  RecordOptions opt;
  opt.keep_steps = false;
  const Recording a = gpu_test::engine().record(r, opt), b = gpu_test::engine().record(r, opt);
  for (const char* g : {"dq", "dk", "dv"}) {
    CAPTURE(g);
    REQUIRE(a.results.find_matrix(g));
    CHECK(a.results.find_matrix(g)->values == b.results.find_matrix(g)->values);
  }
}
