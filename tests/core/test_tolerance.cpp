// The tolerance helper itself (tests/tolerance.h): its assumption about exp() holds on this CPU
// and in this build, and a check against its bound still catches an error of the bound's size.
#include "core/algorithms.h"
#include "core/compare.h"
#include "core/engine.h"
#include "core/fast.h"
#include "tests/tolerance.h"

#include <Eigen/Core>
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace flashstep;

namespace {

// |computed − exact| in units of the computed type's ulp at the exact value.
template <typename T>
double ulps(T computed, long double exact) {
  const long double ulp = std::nextafter(static_cast<T>(exact), std::numeric_limits<T>::infinity()) - static_cast<T>(exact);
  return static_cast<double>(std::fabs(static_cast<long double>(computed) - exact) / ulp);
}

Scenario attention_case(Algorithm a, Precision p) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.n = 40;
  s.d = 16;
  s.seed = 5;
  s.causal = true;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  s.block_rows = 8;
  s.block_cols = 16;
  return s;
}

}  // namespace

TEST_CASE("the CPU's exp is within the bound the tolerances assume (8 ulp)") {
  // Every argument the softmax and attention tests produce lies in [-87, 88] (fp32's range).
  std::vector<float> args;
  for (int k = 0; k <= 175000; ++k) args.push_back(-87.0f + 0.001f * static_cast<float>(k) + 1e-7f * static_cast<float>(k % 7));
  Eigen::ArrayXf a = Eigen::Map<Eigen::ArrayXf>(args.data(), static_cast<Eigen::Index>(args.size()));
  const Eigen::ArrayXf packet = a.exp();  // Eigen's vectorised exp, as the fast kernels use it
  double worst_scalar = 0, worst_packet = 0, worst_double = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const long double exact = std::exp(static_cast<long double>(a[i]));
    worst_scalar = std::max(worst_scalar, ulps(std::exp(a[i]), exact));
    worst_packet = std::max(worst_packet, ulps(packet[i], exact));
    const double x = static_cast<double>(a[i]) * 1.000000123;
    worst_double = std::max(worst_double, ulps(std::exp(x), std::exp(static_cast<long double>(x))));
  }
  MESSAGE("largest exp error in ulp: expf " << worst_scalar << ", Eigen packet exp " << worst_packet << ", exp "
                                           << worst_double << " (limit " << tolerance::exp_ulps(tolerance::Exp::cpu, 0) << ")");
  CHECK(worst_scalar <= tolerance::exp_ulps(tolerance::Exp::cpu, 0));
  CHECK(worst_packet <= tolerance::exp_ulps(tolerance::Exp::cpu, 0));
  CHECK(worst_double <= tolerance::exp_ulps(tolerance::Exp::cpu, 0));
}

TEST_CASE("a perturbation of twice the tolerance is caught") {
  // Two recordings of one scenario agree within their derived bound; moving one output element,
  // or one row's l, by twice that bound makes the same check fail.
  for (Algorithm a : {Algorithm::online, Algorithm::chunked, Algorithm::attn_online, Algorithm::attn_tiled_v2})
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      CAPTURE(algorithm_id(a));
      CAPTURE(precision_name(p));
      Scenario s = takes_qkv(a) ? attention_case(a, p) : Scenario{};
      if (!takes_qkv(a)) {
        s.algorithm = a;
        s.precision = p;
        s.n = 300;
        s.rows = 2;
        s.seed = 9;
      }
      const Resolved r = resolve(s);
      const Recording base = record(r);
      const tolerance::Bound b = tolerance::between(r, tolerance::Exp::cpu, tolerance::Exp::glsl);
      CHECK(tolerance::within(compare(base, base), b, "unperturbed"));

      Recording moved = base;
      const Eigen::Index cell = moved.output().size() / 2;
      moved.output().data()[cell] += 2.0 * b.output;
      const CompareReport rep = compare(base, moved);
      CHECK(rep.max_abs_output_diff == doctest::Approx(2.0 * b.output));
      CHECK_FALSE(tolerance::within(rep, b, "output moved by 2 x limit"));

      Recording heavier = base;
      heavier.l().back() += 2.0 * b.l * std::max(1.0, heavier.l().back()) / (1.0 - 2.0 * b.l);
      CHECK_FALSE(tolerance::within(compare(base, heavier), b, "l moved by 2 x limit"));
    }
}

TEST_CASE("the bound grows with the problem as derived") {
  // γ_n: a longer row, a longer dot product, a coarser format all loosen it; the GLSL exp
  // (3 + 2|x| ulp) is looser than the CPU's.
  const std::vector<double> short_row = {3, 2, 5, 1};
  std::vector<double> long_row;
  for (int i = 0; i < 4000; ++i) long_row.push_back(short_row[static_cast<std::size_t>(i % 4)]);
  using tolerance::Exp;
  const auto b = [](const std::vector<double>& x, Precision p, Exp e) {
    return tolerance::softmax_row(Algorithm::online, x, 1.0, p, e).l;
  };
  CHECK(b(long_row, Precision::fp32, Exp::cpu) > b(short_row, Precision::fp32, Exp::cpu));
  CHECK(b(short_row, Precision::fp16, Exp::cpu) > b(short_row, Precision::fp32, Exp::cpu));
  CHECK(b(short_row, Precision::fp32, Exp::glsl) > b(short_row, Precision::fp32, Exp::cpu));
}
