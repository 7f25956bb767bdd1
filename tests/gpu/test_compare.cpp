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
  b.output()(0, 2) += 0.125;
  b.m()[0] = 5.5;  // relative 0.5 / 5.5
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
  b.output()(0, 0) = kNan;
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

TEST_CASE("numbers in a sentence are masked, names and subscripts are kept") {
  CHECK(mask_numbers("l₃ = 1.2034 * 0.13534 + exp(-3 - -2.5e-05) = inf") == "l₃ = # * # + exp(# - #) = #");
  CHECK(mask_numbers("tile (i=2, j=1): S21 is 4x4, row 3: nan") == "tile (i=#, j=#): S21 is #x4, row #: #");
  CHECK(mask_numbers("information, nano, -x") == "information, nano, -x");
  // As the sentences print numbers (core/text.h): a Unicode minus, powers of ten in superscript.
  // A value that rounds to 0 on one backend and to −5.7×10⁻⁶ on the other is a number either way.
  CHECK(mask_numbers("dS₁ = [−5.722×10⁻⁶, 0, 1.5×10¹², −inf] with D₁ = −23.906") == "dS₁ = [#, #, #, #] with D₁ = #");
  CHECK(mask_numbers("dP₁ − D₁, m₀−m₁, e^{S − L}, 2 ×10") == "dP₁ − D₁, m₀−m₁, e^{S − L}, # ×#");
}

TEST_CASE("steps must tell the same story: numbers may differ, words, labels and lines may not") {
  const Recording a = online_of({3, 2, 5, 1});
  // Other numbers, the same sentences: a backend whose last digits differ.
  const Recording close = online_of({3, 2, 5.001, 1});
  CHECK(a.steps[2].text != close.steps[2].text);
  CHECK(compare(a, close).mismatch == "");
  Recording b = a;
  std::string& text = b.steps[2].text;
  const std::size_t at = text.find("rescaled");
  REQUIRE(at != std::string::npos);
  text.replace(at, 8, "scaled");
  const CompareReport rep = compare(a, b);
  CHECK(rep.mismatch.find("step 2: sentence differs: '") == 0);
  CHECK(rep.mismatch.find("the old sum is scaled by") != std::string::npos);
  CHECK(rep.steps_compared == 2);
  Recording c = a;
  c.steps[3].label = "m₅";
  CHECK(compare(a, c).mismatch == "step 3: label differs: 'm₄, l₄' vs 'm₅'");
  Recording e = a;
  e.steps[6].line_end = 8;
  CHECK(compare(a, e).mismatch == "step 6: pseudocode lines differ: 7-7 vs 7-8");
}

TEST_CASE("summary recordings compare outputs and final statistics only") {
  const CompareReport rep = compare(online_of({3, 2, 5, 1}, false), online_of({3, 2, 5, 1}, false));
  CHECK(rep.steps_compared == 0);
  CHECK(rep.max_abs_output_diff == 0.0);
}

TEST_CASE("recordings of different shapes cannot be compared") {
  CHECK_THROWS_AS(compare(online_of({1, 2, 3}), online_of({1, 2})), std::invalid_argument);
}
