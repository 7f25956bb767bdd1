// A Recording's results are a list of named values: compare(), the JSON report and the stacking
// of heads handle a result none of them names (a gradient "dq", a per-row "D", as the backward
// pass will add), and keep the results every algorithm has where they were.
#include "core/compare.h"
#include "core/engine.h"
#include "core/heads.h"
#include "core/report.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace flashstep;

namespace {

Recording summary(int seed) {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.n = 5;
  s.d = 3;
  s.block_rows = 2;
  s.block_cols = 2;
  s.seed = static_cast<std::uint64_t>(seed);
  return record(resolve(s), RecordOptions{false});
}

// A made-up gradient N × d and statistic per row, values written out plainly: dq(i, c) = i + c/10,
// D(i) = −i.
void add_gradient(Recording& rec, double shift = 0) {
  MatrixRM& dq = rec.results.matrix("dq", "grads");
  dq.resize(rec.n, rec.d);
  for (int i = 0; i < rec.n; ++i)
    for (int c = 0; c < rec.d; ++c) dq(i, c) = i + c / 10.0 + shift;
  std::vector<double>& D = rec.results.row("D");
  D.clear();
  for (int i = 0; i < rec.n; ++i) D.push_back(-i - shift);
}

const ResultDiff* find(const CompareReport& rep, const std::string& name) {
  for (const ResultDiff& d : rep.results)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("the JSON report writes a result it does not name, beside the ones it had") {
  Recording rec = summary(3);
  add_gradient(rec);
  const Json j = recording_json(rec, false);
  // The results every run has stay where they were.
  REQUIRE(j.contains("output"));
  CHECK(j["output"].size() == 5);
  for (const char* key : {"m", "l", "lse"}) CHECK(j["stats"].contains(key));
  // The new ones beside them: the matrix in its group, the statistic under "stats".
  REQUIRE(j.contains("grads"));
  REQUIRE(j["grads"]["dq"].size() == 5);
  for (int i = 0; i < 5; ++i)
    for (int c = 0; c < 3; ++c) CHECK(j["grads"]["dq"][i][c].get<double>() == doctest::Approx(i + c / 10.0));
  REQUIRE(j["stats"]["D"].size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(j["stats"]["D"][i].get<double>() == -i);
  // --output none leaves out every matrix result, the new one too.
  const Json bare = recording_json(rec, false, false);
  CHECK_FALSE(bare.contains("output"));
  CHECK_FALSE(bare.contains("grads"));
  CHECK(bare["stats"].contains("D"));
}

TEST_CASE("compare() measures every result both recordings have, one it does not name included") {
  Recording a = summary(3), b = summary(3);
  add_gradient(a);
  add_gradient(b);
  b.results.matrix("dq")(2, 1) += 0.25;  // one cell of the gradient differs by 0.25
  b.results.row("D")[4] = -4.5;          // D₅ = −4 against −4.5: relative 0.5 / 4.5
  const CompareReport rep = compare(a, b);
  const ResultDiff* dq = find(rep, "dq");
  REQUIRE(dq);
  CHECK(dq->matrix);
  CHECK(dq->max_diff == doctest::Approx(0.25));
  const ResultDiff* D = find(rep, "D");
  REQUIRE(D);
  CHECK_FALSE(D->matrix);
  CHECK(D->max_diff == doctest::Approx(0.5 / 4.5));
  // The same runs otherwise: output, m and l agree to the bit.
  CHECK(rep.max_abs_output_diff == 0);
  CHECK(rep.max_rel_m_diff == 0);
  CHECK(rep.max_rel_l_diff == 0);
  REQUIRE(find(rep, "lse"));
  CHECK(find(rep, "lse")->max_diff == 0);

  // A result of another shape on one side is refused, as a different output is.
  b.results.matrix("dq").resize(4, 3);
  CHECK_THROWS_AS(compare(a, b), std::invalid_argument);
}

TEST_CASE("stacking heads stacks a result it does not name, head after head") {
  std::vector<Recording> heads;
  heads.push_back(summary(3));
  heads.push_back(summary(4));
  add_gradient(heads[0]);
  add_gradient(heads[1], 100);  // head 1's dq(i, c) = 100 + i + c/10, D(i) = −100 − i
  const MatrixRM o1 = heads[1].output();
  const Recording both = stack_heads(std::move(heads));
  CHECK(both.heads == 2);
  const MatrixRM& dq = both.results.find_matrix("dq")->values;
  REQUIRE(dq.rows() == 10);
  REQUIRE(dq.cols() == 3);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i)
      for (int c = 0; c < 3; ++c) CHECK(dq(h * 5 + i, c) == doctest::Approx(100 * h + i + c / 10.0));
  const std::vector<double>& D = both.results.find_row("D")->values;
  REQUIRE(D.size() == 10);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i) CHECK(D[static_cast<std::size_t>(h * 5 + i)] == -100 * h - i);
  // The results every run has are stacked the same way.
  REQUIRE(both.output().rows() == 10);
  CHECK(both.output().bottomRows(5) == o1);
  CHECK(both.lse().size() == 10);
}
