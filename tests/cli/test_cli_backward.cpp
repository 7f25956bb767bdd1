// The backward rows on the command line: run's grads against central differences of a
// long-double forward, and --do given, of the wrong shape, or to a row that takes none.
#include "core/algorithms.h"
#include "core/report.h"
#include "core/scenario.h"
#include "core/text.h"
#include "tests/invoke.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace flashstep;

namespace {

using exe::capture;
using exe::lines;
using exe::Result;

std::string tmp_path(const char* tag) { return "/tmp/flashstep-bwd-" + std::to_string(getpid()) + "-" + tag; }

using LMat = std::vector<std::vector<long double>>;

LMat to_l(const MatrixRM& m) {
  LMat out(static_cast<std::size_t>(m.rows()), std::vector<long double>(static_cast<std::size_t>(m.cols())));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] = m(i, c);
  return out;
}

// ℓ = Σ dO ∘ softmax(s · Q Kᵀ, causal) V in long double.
long double loss(const LMat& Q, const LMat& K, const LMat& V, const LMat& dO, long double s) {
  const std::size_t N = Q.size(), d = Q[0].size();
  long double total = 0;
  for (std::size_t i = 0; i < N; ++i) {
    std::vector<long double> S(i + 1);
    long double m = -INFINITY, l = 0;
    for (std::size_t j = 0; j <= i; ++j) {
      long double dot = 0;
      for (std::size_t c = 0; c < d; ++c) dot += Q[i][c] * K[j][c];
      S[j] = s * dot;
      m = std::max(m, S[j]);
    }
    for (long double x : S) l += std::exp(x - m);
    for (std::size_t j = 0; j <= i; ++j)
      for (std::size_t c = 0; c < d; ++c) total += dO[i][c] * std::exp(S[j] - m) / l * V[j][c];
  }
  return total;
}

}  // namespace

TEST_CASE("run --algo attn-flash-backward --n 32 --d 8 --causal --scale sqrt --seed 3 gives the finite differences' grads") {
  const Result r = capture("run --algo attn-flash-backward --n 32 --d 8 --causal --scale sqrt --seed 3 --steps none --json -");
  REQUIRE(r.status == 0);
  const Json j = Json::parse(r.out);
  REQUIRE(j.contains("grads"));
  REQUIRE(j["stats"].contains("D"));
  // The same problem, its inputs from the seed as the scenario defines them.
  Scenario s;
  s.algorithm = Algorithm::attn_flash_backward;
  s.n = 32, s.d = 8, s.seed = 3, s.causal = true, s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved res = resolve(s);
  const LMat Q = to_l(res.q), K = to_l(res.k), V = to_l(res.v), dO = to_l(res.d_o);
  const tolerance::GradBound b = tolerance::attention_grads(res, tolerance::Exp::cpu);
  long double size = 0;  // Σ|dO|·max|V|: the size of ℓ's terms
  long double vmax = 0;
  for (const auto& row : V)
    for (long double x : row) vmax = std::max(vmax, std::fabs(x));
  for (const auto& row : dO)
    for (long double x : row) size += std::fabs(x) * vmax;
  const double f_error = tolerance::gamma(4LL * 32 * 32 * 8, LDBL_EPSILON / 2) * static_cast<double>(size);
  const long double h = 1e-4L, sc = res.scale;
  const char* names[] = {"dq", "dk", "dv"};
  const MatrixRM* bounds[] = {&b.dq, &b.dk, &b.dv};
  double worst = 0;
  for (int which = 0; which < 3; ++which)
    for (std::size_t i = 0; i < 32; ++i)
      for (std::size_t c = 0; c < 8; ++c) {
        auto at = [&](long double step) {
          LMat q = Q, k = K, v = V;
          LMat& X = which == 0 ? q : which == 1 ? k : v;
          const long double x = X[i][c];
          X[i][c] = x + step;
          const long double up = loss(q, k, v, dO, sc);
          X[i][c] = x - step;
          return (up - loss(q, k, v, dO, sc)) / (2 * step);
        };
        const long double d1 = at(h), d2 = at(h / 2), want = (4 * d2 - d1) / 3;
        const double got = j["grads"][names[which]][i][c].get<double>();
        const double limit = (*bounds[which])(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) +
                             tolerance::central_difference_error(d1, d2, f_error, h / 2);
        CAPTURE(names[which]);
        CAPTURE(i);
        CAPTURE(c);
        CHECK(std::fabs(got - static_cast<double>(want)) <= limit);
        worst = std::max(worst, std::fabs(got - static_cast<double>(want)) / limit);
      }
  MESSAGE("worst error / limit: " << worst);
}

TEST_CASE("--do FILE gives dO: the wrong shape, a non-number or a row that takes no dO is one line, exit 2") {
  const std::string good = tmp_path("do-good.json"), short_file = tmp_path("do-short.json"),
                    word = tmp_path("do-word.json");
  {
    std::ofstream f(good);
    f << "[[1, 0], [0, 1], [0.5, -0.5]]";
    std::ofstream g(short_file);
    g << "{\"do\": [[1, 0], [0, 1]]}";
    std::ofstream w(word);
    w << "[[1, 0], [0, \"x\"], [0, 0]]";
  }
  // Given: the D of row 1 is dO₁ · O₁ = O₁₁ (dO₁ = [1, 0]).
  const Result ok = capture("run --algo attn-backward --n 3 --d 2 --steps none --do " + good + " --json -");
  REQUIRE(ok.status == 0);
  const Json j = Json::parse(ok.out);
  CHECK(std::fabs(j["stats"]["D"][0].get<double>() - j["output"][0][0].get<double>()) <= 1e-6 * (1 + std::fabs(j["output"][0][0].get<double>())));
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"run --algo attn-flash-backward --n 3 --d 2 --do " + short_file, "dO must be 3 × 2 (N × d), got 2 rows"},
      {"run --algo attn-flash-backward --n 3 --d 3 --do " + good, "dO must be 3 × 3 (N × d), got 2 values in row 1"},
      {"run --algo attn-backward --n 3 --d 2 --do " + word, "not a number"},
      {"run --algo attn-tiled-v2 --n 3 --d 2 --do " + good, "attn-tiled-v2 takes Q, K, V; it takes no dO"},
      {"run --algo attn-backward --n 3 --d 2 --do /nonexistent/do.json", "/nonexistent/do.json"},
      {"run --algo attn-backward --n 3 --d 2 --steps none --heads 2 --do " + good, "--heads with --do"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Result r = capture(c.args + " --json -");
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  for (const std::string& f : {good, short_file, word}) std::remove(f.c_str());
}

TEST_CASE("attn-backward too large for memory names P, dP and dS and the flash backward to run instead") {
  // 3·N² fp32 values at N = 300000 are about 1 TiB.
  const Result r = capture("run --algo attn-backward --n 300000 --d 8 --steps none --json -");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CAPTURE(r.err);
  CHECK(r.err.find("P, dP and dS") != std::string::npos);
  CHECK(r.err.find("use attn-flash-backward (no N×N matrix)") != std::string::npos);
}

TEST_CASE("--qkv with --seed: the seed still draws the backward's dO, so it is taken, and with --do as well it is refused") {
  const std::string qkv = tmp_path("qkv.json"), d_o = tmp_path("do2.json");
  {
    std::ofstream f(qkv);
    f << R"({"q": [[1, 0], [0, 1]], "k": [[1, 1], [0, 1]], "v": [[1, 2], [3, 4]]})";
    std::ofstream g(d_o);
    g << "[[1, 0], [0, 1]]";
  }
  const Result a = capture("run --algo attn-backward --qkv " + qkv + " --seed 5 --steps none --json -");
  const Result b = capture("run --algo attn-backward --qkv " + qkv + " --seed 6 --steps none --json -");
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(Json::parse(a.out)["grads"] != Json::parse(b.out)["grads"]);  // another seed, another dO
  const Result c = capture("run --algo attn-backward --qkv " + qkv + " --do " + d_o + " --seed 5 --json -");
  CHECK(c.status == 2);
  CHECK(c.err.find("--seed with --qkv") != std::string::npos);
  const Result d = capture("run --algo attn-naive --qkv " + qkv + " --seed 5 --json -");
  CHECK(d.status == 2);
  std::remove(qkv.c_str());
  std::remove(d_o.c_str());
}

TEST_CASE("the flash backward's own blocks are fitted to its tile step, and its notice names the backward's tiles") {
  const Result r = capture("run --algo attn-flash-backward --n 512 --d 64 --steps none --output none");
  REQUIRE(r.status == 0);
  const Json j = Json::parse(r.out);
  REQUIRE(j["notices"].size() == 1);
  const std::string notice = j["notices"][0];
  CHECK(notice.find("dKⱼ") != std::string::npos);
  CHECK(notice.find("dSᵢⱼ") != std::string::npos);
  // What a thread holds, counted here: Qᵢ, dOᵢ, dQᵢ (Br × d), Kⱼ, Vⱼ, dKⱼ, dVⱼ (Bc × d) and
  // Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ (Br × Bc), in floats.
  const long long Br = j["blocks"]["Br"], Bc = j["blocks"]["Bc"];
  const long long bytes = 4 * (3 * Br * 64 + 4 * Bc * 64 + 4 * Br * Bc);
  CHECK(notice.find(bytes_text(static_cast<double>(bytes))) != std::string::npos);
}
