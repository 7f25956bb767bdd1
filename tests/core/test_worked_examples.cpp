// The worked examples of the lessons (DESIGN.md), checked against numbers written here.
#include "core/engine.h"
#include "tests/core/reference.h"
#include "tests/rows.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace flashstep;

namespace {

Recording run(Algorithm a, std::vector<double> x, Precision p = Precision::fp32,
              ScaleMode mode = ScaleMode::none, int d = 4) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.x = {std::move(x)};
  s.scale_mode = mode;
  s.d = d;
  return record(s);
}

}  // namespace

TEST_CASE("[3, 2, 5, 1] with every softmax algorithm matches the long-double reference") {
  const std::vector<double> x = {3, 2, 5, 1};
  const auto want = ref::softmax(x);
  // Every row that takes x and writes y itself (a log-softmax row writes log y).
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return takes(row.algorithm, kInputX) && !row.stores_lse; })) {
    CAPTURE(algorithm_id(a));
    const Recording rec = run(a, x);
    REQUIRE(rec.output().cols() == 4);
    for (int i = 0; i < 4; ++i) CHECK(rec.output()(0, i) == doctest::Approx(static_cast<double>(want[i])).epsilon(1e-6));
  }
}

TEST_CASE("[1000, 2000, 3000]: naive gives nan in fp32 and fp64, safe gives [0, 0, 1]") {
  for (Precision p : {Precision::fp32, Precision::fp64}) {
    CAPTURE(precision_name(p));
    const Recording naive = run(Algorithm::naive, {1000, 2000, 3000}, p);
    for (int i = 0; i < 3; ++i) CHECK(std::isnan(naive.output()(0, i)));
    const Recording safe = run(Algorithm::safe, {1000, 2000, 3000}, p);
    CHECK(safe.output()(0, 0) == 0.0);
    CHECK(safe.output()(0, 1) == 0.0);
    CHECK(safe.output()(0, 2) == 1.0);
  }
}

TEST_CASE("[10, 0, -5] gives [0.9999543, 4.5398e-5, 3.0589e-7]") {
  const Recording rec = run(Algorithm::online, {10, 0, -5}, Precision::fp64);
  CHECK(rec.output()(0, 0) == doctest::Approx(0.9999543).epsilon(1e-7));
  CHECK(rec.output()(0, 1) == doctest::Approx(4.5398e-5).epsilon(1e-4));
  CHECK(rec.output()(0, 2) == doctest::Approx(3.0589e-7).epsilon(1e-4));
}

TEST_CASE("1/sqrt(d): [10, 0, -5] with d = 4 and d = 64") {
  // d = 4: scores [5, 0, -2.5].
  const Recording d4 = run(Algorithm::safe, {10, 0, -5}, Precision::fp64, ScaleMode::inv_sqrt_d, 4);
  CHECK(d4.output()(0, 0) == doctest::Approx(0.99276).epsilon(1e-5));
  CHECK(d4.output()(0, 1) == doctest::Approx(0.00669).epsilon(2e-3));
  CHECK(d4.output()(0, 2) == doctest::Approx(0.00055).epsilon(1e-2));
  // d = 64: scores [1.25, 0, -0.625] -> [0.69451, 0.19898, 0.10651] (a widely copied note
  // gets this one wrong).
  const Recording d64 = run(Algorithm::safe, {10, 0, -5}, Precision::fp64, ScaleMode::inv_sqrt_d, 64);
  CHECK(d64.output()(0, 0) == doctest::Approx(0.69451).epsilon(1e-4));
  CHECK(d64.output()(0, 1) == doctest::Approx(0.19898).epsilon(1e-4));
  CHECK(d64.output()(0, 2) == doctest::Approx(0.10651).epsilon(1e-4));
}
