// Predict-the-value questions (core/questions.h): answers checked against the softmax worked
// out here in long double, and the scoring at the digits the screen shows.
#include "core/engine.h"
#include "core/lessons.h"
#include "core/questions.h"
#include "core/text.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

using namespace flashstep;

namespace {

Question number(double value) {
  Question q;
  q.kind = QuestionKind::l;
  q.value = value;
  q.digits = kShownDigits;
  q.shown = num(value, kShownDigits);
  return q;
}

Recording online(std::vector<double> x, Precision p = Precision::fp64) {
  Scenario s;
  s.algorithm = Algorithm::online;
  s.precision = p;
  s.x = {std::move(x)};
  return record(s);
}

}  // namespace

TEST_CASE("a prediction is right at the digits shown, and wrong otherwise") {
  const Question e = number(2.718281828459045);  // shown as 2.7183
  CHECK(e.shown == "2.7183");
  for (const char* right : {"2.7183", "2.72", "2.718", "2.71828", "2.718281828", " 2.72 "}) {
    const Verdict v = score(e, right);
    CAPTURE(right);
    CHECK(v.accepted);
    CHECK(v.right);
  }
  for (const char* wrong : {"2.71", "2.7182", "2.73", "-2.72", "27.2"}) {
    const Verdict v = score(e, wrong);
    CAPTURE(wrong);
    CHECK(v.accepted);
    CHECK_FALSE(v.right);
  }
  CHECK(score(e, "2.72").line() == "you: 2.72, right: 2.7183 ✓");
  CHECK(score(e, "2.71").line() == "you: 2.71, right: 2.7183 ✗");
  // Too few digits, or not a number: asked again, with one line saying why.
  CHECK_FALSE(score(e, "3").accepted);
  CHECK(score(e, "3").error == "give at least 3 significant digits (the screen shows 5)");
  CHECK_FALSE(score(e, "e").accepted);
  CHECK(score(e, "two").error == "\"two\" is not a number");
  CHECK(score(e, "").error.find("Esc to skip") != std::string::npos);

  // A value the screen shows with fewer digits needs no more than those.
  CHECK(score(number(0.5), "0.5").right);
  CHECK(score(number(0.5), ".50").right);
  CHECK_FALSE(score(number(0.5), "0.6").right);
  CHECK(score(number(-1.5), "−1.5").right);  // the minus the screen uses
  CHECK(score(number(-HUGE_VAL), "−∞").right);
  CHECK_FALSE(score(number(-HUGE_VAL), "0").right);
  CHECK(score(number(1.234e-5), "1.23e-5").right);
  CHECK(number(1.6694e-5).shown == "1.6694×10⁻⁵");
  CHECK(score(number(1.6694e-5), "1.6694×10⁻⁵").right);  // as the screen writes it
  CHECK(score(number(1.6694e-5), "1.67x10^-5").right);
  CHECK(score(number(-2.5e12), "−2.50×10¹²").right);
  CHECK_FALSE(score(number(1.6694e-5), "1.67×10⁻⁴").right);

  Question tile;
  tile.kind = QuestionKind::tile, tile.tile_i = 2, tile.tile_j = 1, tile.digits = 0, tile.shown = "(2, 1)";
  CHECK(score(tile, "(2, 1)").right);
  CHECK(score(tile, "2 1").right);
  CHECK(score(tile, "tile (i=2, j=1)").right);
  CHECK_FALSE(score(tile, "1, 2").right);
  CHECK_FALSE(score(tile, "2").accepted);

  Question count;
  count.kind = QuestionKind::hbm_reads, count.value = 1024, count.digits = 0, count.shown = "1024";
  CHECK(score(count, "1024").right);
  CHECK(score(count, "1,024").right);
  CHECK_FALSE(score(count, "1023").right);
  CHECK_FALSE(score(count, "1e3").accepted);
}

TEST_CASE("questions of online softmax hold the values worked out in long double") {
  const std::vector<double> x = {1, 3, 2, 5, 0, 4, 6, 1, -2, 7, 3, 2};
  const Recording rec = online(x);
  const std::vector<Question> qs = make_questions(rec);
  REQUIRE(qs.size() >= 3);
  REQUIRE(qs.size() <= 10);
  const int n = static_cast<int>(x.size());
  std::set<QuestionKind> kinds;
  int last = -100;
  for (const Question& q : qs) {
    CAPTURE(q.prompt);
    CHECK(q.step - last >= 3);  // not one question after another
    last = q.step;
    kinds.insert(q.kind);
    // Pass 1 step k (0-based) has read x₀..x_k: m_k = max, l_k = Σ e^(xᵢ − m_k).
    const int k = q.step;
    long double m = -INFINITY, m_before = -INFINITY, l = 0;
    for (int i = 0; i <= std::min(k, n - 1); ++i) {
      m_before = m;
      m = std::max<long double>(m, x[static_cast<std::size_t>(i)]);
    }
    for (int i = 0; i <= std::min(k, n - 1); ++i) l += std::exp(static_cast<long double>(x[static_cast<std::size_t>(i)]) - m);
    const double tol = tolerance::gamma(4 * n, tolerance::unit_roundoff(Precision::fp64));
    switch (q.kind) {
      case QuestionKind::m: CHECK(q.value == static_cast<double>(m)); break;
      case QuestionKind::l: CHECK(std::fabs(q.value - static_cast<double>(l)) <= tol * static_cast<double>(l)); break;
      case QuestionKind::rescale: {
        const long double want = std::exp(m_before - m);
        CHECK(std::fabs(q.value - static_cast<double>(want)) <= tol * static_cast<double>(want));
        break;
      }
      case QuestionKind::hbm_reads:
        // The end of a pass: pass 1 has read x once (n), pass 2 reads it again (2n).
        CHECK(q.value == (k < n ? n : 2 * n));
        break;
      case QuestionKind::tile: FAIL("softmax has no tiles"); break;
    }
    // Its own answer as shown is right.
    CHECK(score(q, q.shown).right);
  }
  CHECK(kinds.size() >= 2);
}

TEST_CASE("questions come from any input: FlashAttention asks which tile comes next") {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled, s.n = 16, s.d = 2, s.block_rows = 4, s.block_cols = 4, s.seed = 9;
  const Recording fa1 = record(s);  // Tr = Tc = 4, K/V blocks outer: step k is tile (k mod 4 + 1, k div 4 + 1)
  REQUIRE(fa1.step_count() == 16);
  const std::vector<Question> qs = make_questions(fa1);
  REQUIRE(qs.size() >= 3);
  int tiles = 0;
  for (const Question& q : qs) {
    CAPTURE(q.prompt);
    CHECK(score(q, q.shown).right);
    CHECK(q.kind != QuestionKind::m);  // a tile's m follows from scores not on screen yet
    if (q.kind != QuestionKind::tile) continue;
    ++tiles;
    CHECK(q.tile_i == q.step % 4 + 1);
    CHECK(q.tile_j == q.step / 4 + 1);
    // i and j swapped is wrong (FlashAttention-2's order), where they differ.
    if (q.tile_i != q.tile_j)
      CHECK_FALSE(score(q, std::to_string(q.tile_j) + ", " + std::to_string(q.tile_i)).right);
  }
  CHECK(tiles >= 2);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Scenario r;
    r.algorithm = Algorithm::online, r.n = 40, r.seed = seed;
    const auto more = make_questions(record(r));
    CAPTURE(seed);
    CHECK(more.size() >= 3);
    CHECK(more.size() <= 10);
  }
  CHECK(make_questions(online({1, 2})).size() <= 1);
}

TEST_CASE("every lesson's preset asks at least one question, at most ten, each right with its own shown answer") {
  for (const Lesson& lesson : lessons()) {
    CAPTURE(lesson.id);
    const Recording rec = record(lesson.scenario);
    const std::vector<Question> qs = make_questions(rec);
    if (rec.step_count() >= 8) CHECK_FALSE(qs.empty());
    CHECK(qs.size() <= static_cast<std::size_t>(kMaxQuestions));
    for (std::size_t i = 0; i < qs.size(); ++i) {
      CAPTURE(qs[i].prompt);
      CHECK(qs[i].step >= 1);
      CHECK(qs[i].step < rec.step_count());
      if (i > 0) CHECK(qs[i].step - qs[i - 1].step >= 3);
      CHECK(score(qs[i], qs[i].shown).right);
      CHECK(qs[i].prompt.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("a 16-bit run's question names its format, and an answer worked out exactly is right within a step of it") {
  // Naive softmax of [3, 2, 5, 1] in fp16: l after step 2 is e³ + e² rounded as fp16 rounds
  // each operation. Worked out here: the exact sum, and the fp16 value it lies near, whose
  // spacing at 16 ≤ l < 32 is 2⁴ · 2⁻¹⁰ = 1/64.
  Scenario s;
  s.algorithm = Algorithm::naive;
  s.precision = Precision::fp16;
  s.x = {{3, 2, 5, 1}};
  const Recording rec = record(s);
  const std::vector<Question> qs = make_questions(rec);
  const Question* l = nullptr;
  for (const Question& q : qs)
    if (q.kind == QuestionKind::l && !l) l = &q;
  REQUIRE(l);
  CAPTURE(l->prompt);
  CHECK(l->prompt.find(", in fp16?") != std::string::npos);
  const long double exact = std::exp(3.0L) + std::exp(2.0L);
  const long double spacing = 1.0L / 64;
  CHECK(std::abs(static_cast<long double>(l->value) - exact) <= spacing);
  CHECK(l->slack == doctest::Approx(static_cast<double>(spacing)));
  CHECK(score(*l, l->shown).right);
  CHECK(score(*l, num(static_cast<double>(exact))).right);  // 27.475: exact, not what fp16 holds
  CHECK(score(*l, "27.4746").right);
  CHECK_FALSE(score(*l, num(static_cast<double>(exact + 2 * spacing))).right);
  // fp32 and fp64 name no format and take no slack.
  s.precision = Precision::fp32;
  for (const Question& q : make_questions(record(s))) {
    CAPTURE(q.prompt);
    CHECK(q.slack == 0);
    CHECK(q.prompt.find(", in fp") == std::string::npos);
  }
}

TEST_CASE("a question's hint asks for the digits its answer needs, and its prompt names one quantity") {
  // m of [3, 2, 5, 1] becomes 5 at step 3: one digit shown, so "5" is an answer and the hint
  // does not ask for 3 digits.
  Scenario s;
  s.algorithm = Algorithm::safe;
  s.precision = Precision::fp32;
  s.x = {{3, 2, 5, 1}};
  const Recording rec = record(s);
  bool seen_m = false;
  for (const Question& q : make_questions(rec)) {
    CAPTURE(q.prompt);
    // The step by its number only: its label "(m₂, l₂)" read as a second quantity asked for.
    CHECK(q.prompt.find('(') == std::string::npos);
    if (q.kind != QuestionKind::m) continue;
    seen_m = true;
    CHECK(q.value == 5.0);
    CHECK(q.hint == "a number");
    CHECK(score(q, "5").right);
  }
  CHECK(seen_m);
  CHECK(number(2.718281828459045).digits == kShownDigits);
}

TEST_CASE("the FlashAttention-2 backward's questions ask both loop orders: Q blocks inner in the forward, then in the backward") {
  // Worked out from the algorithm: the forward's tile after (1, 1) is (1, 2) (K/V blocks inner),
  // the backward's after its first tile (1, 1) is (2, 1) (Q blocks inner). Both are asked.
  for (const Lesson& lesson : lessons()) {
    if (lesson.id != "attn-flash-backward") continue;
    const Recording rec = record(lesson.scenario);
    bool forward = false, backward = false;
    for (const Question& q : make_questions(rec)) {
      if (q.kind != QuestionKind::tile) continue;
      const Step& before = rec.steps[static_cast<std::size_t>(q.step - 1)];
      CAPTURE(q.prompt);
      if (before.tile_i + 1 == q.tile_i && before.tile_j + 2 == q.tile_j) forward = true;
      if (before.tile_i + 2 == q.tile_i && before.tile_j + 1 == q.tile_j) backward = true;
    }
    CHECK(forward);
    CHECK(backward);
    return;
  }
  FAIL("no attn-flash-backward lesson");
}
