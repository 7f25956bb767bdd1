// A Recording's results are a list of named values: compare(), the JSON report and the stacking
// of heads handle a result none of them names (a gradient "dq", a per-row "D", as the backward
// pass will add), and keep the results every algorithm has where they were.
#include "core/algorithms.h"
#include "core/compare.h"
#include "core/engine.h"
#include "core/heads.h"
#include "core/recorder.h"
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

namespace {

// Two steps of a made-up gradient dQ (2 × 2, result "dq") and a statistic LSE (result "lse"):
// step 1 writes dQ = [[1, 2], [3, 4]] and LSE = [0.5, 0.25], step 2 writes dQ(0, 0) = 5; the
// results hold the values after step 2. `first` replaces dQ(1, 1) and LSE₂ of step 1 only.
Recording two_steps(double dq_first, double lse_first) {
  Recording out;
  out.algorithm = Algorithm::attn_tiled_v2;
  out.n = 2, out.d = 2;
  Recorder rec(out, true);
  const int bq = rec.add_buffer(BufferInfo{"dQ", 2, 2, Space::hbm}.axes(Axis::query, Axis::feature));
  const int bl = rec.add_buffer(BufferInfo{"LSE", 2, 1, Space::hbm}.axes(Axis::query, Axis::none));
  Step s1;
  rec.write(bq, 0, 0, 1), rec.write(bq, 0, 1, 2), rec.write(bq, 1, 0, 3), rec.write(bq, 1, 1, dq_first);
  rec.write(bl, 0, 0, 0.5), rec.write(bl, 1, 0, lse_first);
  rec.commit(s1);
  Step s2;
  rec.write(bq, 1, 1, 4);
  rec.write(bl, 1, 0, 0.25);
  rec.write(bq, 0, 0, 5);
  rec.commit(s2);
  out.output() = MatrixRM::Zero(2, 2);
  MatrixRM& dq = out.results.matrix("dq", "grads");
  dq.resize(2, 2);
  dq << 5, 2, 3, 4;
  out.results.row("lse") = {0.5, 0.25};
  return out;
}

}  // namespace

TEST_CASE("compare() follows a result through the steps in the buffer of its name, case aside") {
  const Recording a = two_steps(4, 0.25);
  // dQ₂₂ = 4.5 and LSE₂ = 0.375 at step 1 only: the results after the last step agree.
  const Recording b = two_steps(4.5, 0.375);
  const CompareReport rep = compare(a, b);
  CHECK(rep.steps_compared == 2);
  CHECK(rep.mismatch == "");
  REQUIRE(find(rep, "dq"));
  CHECK(find(rep, "dq")->group == "grads");
  CHECK(find(rep, "dq")->max_diff == doctest::Approx(0.5));        // absolute, a matrix
  REQUIRE(find(rep, "lse"));
  CHECK(find(rep, "lse")->max_diff == doctest::Approx(0.125));     // relative below 1: absolute
  const CompareReport same = compare(a, two_steps(4, 0.25));
  CHECK(find(same, "dq")->max_diff == 0);
  CHECK(find(same, "lse")->max_diff == 0);
}

namespace {

// Two steps of a made-up output held in a buffer named O (2 × 1): step 1 writes O = [1, first],
// step 2 writes O₂ = 2; the output after step 2 is [1, 2] whatever `first` was.
Recording output_in_o(double first) {
  Recording out;
  out.algorithm = Algorithm::attn_tiled_v2;
  out.n = 2, out.d = 1;
  Recorder rec(out, true);
  const int bo = rec.add_buffer(BufferInfo{"O", 2, 1, Space::hbm}.holds("output").axes(Axis::query, Axis::feature));
  Step s1;
  rec.write(bo, 0, 0, 1), rec.write(bo, 1, 0, first);
  rec.commit(s1);
  Step s2;
  rec.write(bo, 1, 0, 2);
  rec.commit(s2);
  out.output().resize(2, 1);
  out.output() << 1, 2;
  return out;
}

}  // namespace

TEST_CASE("compare() follows the output through the steps in the buffer that declares it holds it") {
  // O₂ = 2.75 against 2 at step 1 only: the outputs after the last step agree.
  const CompareReport rep = compare(output_in_o(2), output_in_o(2.75));
  CHECK(rep.steps_compared == 2);
  CHECK(rep.mismatch == "");
  CHECK(rep.max_abs_output_diff == doctest::Approx(0.75));
  CHECK(compare(output_in_o(2), output_in_o(2)).max_abs_output_diff == 0);
}

TEST_CASE("every recorded algorithm's output is held in a buffer that declares it") {
  for (const AlgorithmInfo& row : algorithm_table()) {
    CAPTURE(row.id);
    Scenario s;
    s.algorithm = row.algorithm;
    s.seed = 5;
    const Recording rec = record(resolve(s));
    int holders = 0;
    for (const BufferInfo& b : rec.buffers) holders += b.result == "output";
    CHECK(holders == 1);
  }
}
