// compare(): the CPU/GPU diff. Pure: two CPU recordings, one of them altered by hand.
#include "core/compare.h"
#include "core/engine.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace flashstep;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Recording online_of(std::vector<double> x, bool keep_steps = true) {
  Scenario s;
  s.algorithm = Algorithm::online;
  s.x = {std::move(x)};
  RecordOptions opt;
  opt.keep_steps = keep_steps;
  return record(resolve(s), opt);
}
}  // namespace

TEST_CASE("differences of non-finite values follow their pattern") {
  CHECK(abs_diff(kNan, kNan) == 0.0);
  CHECK(abs_diff(kInf, kInf) == 0.0);
  CHECK(abs_diff(-kInf, -kInf) == 0.0);
  CHECK(std::isinf(abs_diff(kInf, -kInf)));
  CHECK(std::isinf(abs_diff(kNan, 1.0)));
  CHECK(std::isinf(abs_diff(2.0, kNan)));
  CHECK(std::isinf(abs_diff(kInf, 1e308)));
  CHECK(std::isinf(rel_diff(kNan, 0.0)));
  CHECK(rel_diff(kNan, kNan) == 0.0);
  CHECK(abs_diff(1.5, 1.25) == 0.25);
  CHECK(rel_diff(200.0, 100.0) == 0.5);   // relative above 1
  CHECK(rel_diff(1e-4, 2e-4) == doctest::Approx(1e-4));  // absolute below 1
}

TEST_CASE("a recording compared with itself differs by nothing") {
  const Recording a = online_of({3, 2, 5, 1});
  const CompareReport rep = compare(a, a);
  CHECK(rep.max_abs_output_diff == 0.0);
  CHECK(rep.max_rel_m_diff == 0.0);
  CHECK(rep.max_rel_l_diff == 0.0);
  CHECK(rep.steps_compared == 8);
  CHECK(rep.mismatch == "");
}

TEST_CASE("output, final m and l, and per-step l differences are each reported") {
  const Recording a = online_of({3, 2, 5, 1});
  Recording b = a;
  b.output(0, 2) += 0.125;
  b.m[0] = 5.5;  // relative 0.5 / 5.5
  const int bl = b.find_buffer("l");
  // Alter l in the deltas of step 1 only; the final l stays equal.
  for (std::uint32_t i = b.delta_begin(1); i < b.steps[1].delta_end; ++i)
    if (static_cast<int>(b.deltas[i].buffer) == bl) b.deltas[i].value *= 1.5;
  const CompareReport rep = compare(a, b);
  CHECK(rep.max_abs_output_diff == 0.125);
  CHECK(rep.max_rel_m_diff == doctest::Approx(0.5 / 5.5));
  CHECK(rep.max_rel_l_diff == doctest::Approx(1.0 / 3.0));  // 1.3679 against 1.5 * 1.3679
}

TEST_CASE("a NaN on one side only is an infinite difference") {
  const Recording a = online_of({3, 2, 5, 1});
  Recording b = a;
  b.output(0, 0) = kNan;
  CHECK(std::isinf(compare(a, b).max_abs_output_diff));
  Recording c = online_of({1000, 2000, kNan});
  CHECK(compare(c, c).max_abs_output_diff == 0.0);  // NaN against NaN: the same pattern
}

TEST_CASE("different step sequences are reported, and the shared prefix is compared") {
  const Recording a = online_of({3, 2, 5, 1});
  Recording b = a;
  b.steps[5].pass = 1;
  const CompareReport rep = compare(a, b);
  CHECK(rep.mismatch.find("step 5") != std::string::npos);
  CHECK(rep.steps_compared == 5);
  Recording c = a;
  c.steps.pop_back();
  CHECK(compare(a, c).mismatch.find("8 steps against 7") != std::string::npos);
}

TEST_CASE("summary recordings compare outputs and final statistics only") {
  const CompareReport rep = compare(online_of({3, 2, 5, 1}, false), online_of({3, 2, 5, 1}, false));
  CHECK(rep.steps_compared == 0);
  CHECK(rep.max_abs_output_diff == 0.0);
}

TEST_CASE("recordings of different shapes cannot be compared") {
  CHECK_THROWS_AS(compare(online_of({1, 2, 3}), online_of({1, 2})), std::invalid_argument);
}
