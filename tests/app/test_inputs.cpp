// The Inputs form and the AppState behind it, without a window: typing, presets, the SRAM
// check, and that bad input never loses the last valid recording.
#include "tests/app/drive.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/inputs.h"
#include "core/engine.h"
#include "tests/rows.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

TEST_CASE("inputs: a vector typed half-way keeps the last valid one") {
  Inputs in;
  CHECK(edit_vector_text(in, "1, 2, 3"));
  CHECK(in.x == std::vector<std::vector<double>>{{1, 2, 3}});
  CHECK(in.vector_error.empty());
  CHECK_FALSE(edit_vector_text(in, "1, 2, x"));
  CHECK(in.x == std::vector<std::vector<double>>{{1, 2, 3}});
  CHECK(in.vector_error.find("'x'") != std::string::npos);
  CHECK(in.vector_text == "1, 2, x");
  CHECK_FALSE(edit_vector_text(in, ""));
  CHECK(in.vector_error.find("empty") != std::string::npos);
  CHECK(edit_vector_text(in, "[10, 0, \xE2\x88\x92" "5]"));  // Unicode minus from a slide
  CHECK(in.x == std::vector<std::vector<double>>{{10, 0, -5}});
  CHECK(edit_vector_text(in, "1 2; 3 4"));
  CHECK(in.x.size() == 2);
  CHECK_FALSE(edit_vector_text(in, "1 2; 3"));
  CHECK(in.x.size() == 2);
  // An empty value is an error at its position, not a dropped field; one closing comma is fine.
  CHECK_FALSE(edit_vector_text(in, "1,,2"));
  CHECK(in.vector_error.find("value 2 of row 1 is empty") != std::string::npos);
  CHECK(in.x.size() == 2);
  CHECK(edit_vector_text(in, "4, 5,"));
  CHECK(in.x == std::vector<std::vector<double>>{{4, 5}});
}

TEST_CASE("inputs: presets, formatting and the random vector") {
  Inputs in;
  set_vector(in, {{1000, 2000, 3000}});
  CHECK(in.vector_text == "1000, 2000, 3000");
  set_vector(in, {{0.1, -5}, {1e-7, 2}});
  CHECK(in.vector_text == "0.1, -5; 1e-07, 2");
  Inputs back;
  CHECK(edit_vector_text(back, in.vector_text));
  CHECK(back.x == in.x);
  CHECK(vector_presets().size() == 3);
  const auto r1 = random_vector(6, 3), r2 = random_vector(6, 3), r3 = random_vector(6, 4);
  CHECK(r1.size() == 6);
  CHECK(r1 == r2);
  CHECK(r1 != r3);
  for (double v : r1) CHECK(std::round(v * 100) == doctest::Approx(v * 100));
}

TEST_CASE("inputs: the form and the scenario agree both ways") {
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    const Inputs in = inputs_from(l.scenario);
    const Scenario s = scenario_from(in);
    const Resolved a = resolve(s), b = resolve(l.scenario);
    CHECK(a.n == b.n);
    CHECK(a.d == b.d);
    CHECK(a.scale == doctest::Approx(b.scale));
    CHECK(a.Br == b.Br);
    CHECK(a.Bc == b.Bc);
    CHECK(a.x == b.x);
    CHECK(a.q == b.q);
    CHECK(s.precision == l.scenario.precision);
  }
  Inputs in;
  in.scale = ScaleChoice::temperature;
  in.temperature = 2.0;
  CHECK(scale_of(in) == 0.5);
  CHECK(scenario_from(in).scale_value == 0.5);
  in.temperature = 0.0;
  CHECK(check_inputs(in).find("temperature") != std::string::npos);
  in.temperature = 1.0;
  in.algorithm = Algorithm::attn_naive;
  in.N = kMaxAttentionN + 1;
  CHECK(check_inputs(in).find("N = ") != std::string::npos);
}

TEST_CASE("inputs: does the tile fit in SRAM") {
  CHECK(tile_elements(kForwardTile, 4, 4, 4) == 2 * 4 * 4 + 2 * 4 * 4 + 4 * 4);
  CHECK(tile_elements_without_s(kForwardTile, 4, 4, 4) == 64);
  CHECK(tile_fits(kForwardTile, 4, 4, 4, 80));
  CHECK_FALSE(tile_fits(kForwardTile, 4, 4, 4, 79));
  int Br = 0, Bc = 0;
  blocks_from_sram(64, 4, Br, Bc);
  CHECK(Bc == 4);
  CHECK(Br == 4);
  blocks_from_sram(16384, 64, Br, Bc);
  CHECK(Bc == 64);
  CHECK(Br == 64);
  blocks_from_sram(100, 8, Br, Bc);  // ceil(100 / 32) = 4
  CHECK(Bc == 4);
  CHECK(Br == 4);
  // Typed extremes: M + 4d and 4d would overflow an int (4 · 2^30 wraps to 0, a division by 0).
  blocks_from_sram(2147483647, 8, Br, Bc);  // ceil((2^31 − 1) / 32) = 2^26
  CHECK(Bc == 67108864);
  CHECK(Br == 8);
  blocks_from_sram(64, 1073741824, Br, Bc);  // 4d = 2^32
  CHECK(Bc == 1);
  CHECK(Br == 1);
  blocks_from_sram(2147483647, 999999999, Br, Bc);  // ceil((2^31 − 1) / 3999999996) = 1
  CHECK(Bc == 1);
  CHECK(Br == 1);
}

TEST_CASE("app state: bad input keeps the last valid recording, good input keeps the pass") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("safe"));
  REQUIRE(app.played.rec->step_count() == 12);
  app.seek(9);  // pass 3, step 10
  const auto before = app.played.rec;

  CHECK_FALSE(edit_vector_text(app.inputs, "3, 2, oops"));
  app.inputs_changed();
  CHECK(app.played.rec == before);
  CHECK(!app.input_error.empty());
  CHECK(app.status_severity == Severity::error);
  CHECK(app.timeline.playhead() == 9);

  CHECK(edit_vector_text(app.inputs, "3, 2, 5, 1, 4, 0"));
  app.inputs_changed();
  CHECK(app.input_error.empty());
  CHECK(app.played.rec != before);
  CHECK(app.played.rec->step_count() == 18);
  CHECK(app.timeline.pass() == 3);          // still in pass 3 (normalize)
  CHECK(app.timeline.playhead() == 12 + 1);  // same offset into it
  CHECK(app.played.cursor->position() == app.timeline.playhead());

  // A worker count larger than n is clamped to n by resolve(), and the log says so.
  REQUIRE(app.open_lesson("chunked"));
  const auto chunked = app.played.rec;
  const int n = chunked->n;
  app.inputs.chunks = 99;
  app.inputs_changed();
  CHECK(app.input_error.empty());
  REQUIRE(app.played.rec != chunked);
  CHECK(app.played.rec->chunks == n);
  CHECK(app.status_severity == Severity::warning);
  CHECK(app.status == "99 workers are more than the n = " + std::to_string(n) + " elements; using " +
                          std::to_string(n) + " workers");
}

TEST_CASE("app state: an empty value in the vector field marks the field and keeps the last valid input") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  const auto before = app.played.rec;
  const auto x = app.inputs.x;

  // What panel_inputs does when the field is edited.
  CHECK_FALSE(edit_vector_text(app.inputs, "3,,5"));
  app.inputs_changed();
  CHECK(app.inputs.vector_error.find("value 2 of row 1 is empty") != std::string::npos);
  // The field shows the message (the panel's "Not applied" line is for the other fields).
  CHECK(app.input_error == app.inputs.vector_error);
  CHECK(app.status_severity == Severity::error);
  CHECK(app.inputs.x == x);
  CHECK(app.played.rec == before);

  CHECK_FALSE(edit_vector_text(app.inputs, ",3,5"));
  app.inputs_changed();
  CHECK(app.inputs.vector_error.find("value 1 of row 1 is empty") != std::string::npos);
  CHECK(app.played.rec == before);

  CHECK(edit_vector_text(app.inputs, "3, 5,"));
  app.inputs_changed();
  CHECK(app.input_error.empty());
  CHECK(app.played.rec != before);
  CHECK(app.played.rec->n == 2);
}

TEST_CASE("app state: an empty vector is refused, and block sizes of 0 are derived from M and said so") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  const auto before = app.played.rec;
  CHECK_FALSE(edit_vector_text(app.inputs, ""));
  app.inputs_changed();
  CHECK(app.inputs.vector_error.find("empty") != std::string::npos);
  CHECK(app.input_error == app.inputs.vector_error);
  CHECK(app.played.rec == before);

  // Br = Bc = 0 typed in the window means what it means in a scenario file: derived from M,
  // with the derived values in the status line (information, not a warning).
  REQUIRE(app.open_lesson("attn-tiled"));
  app.inputs.blocks = BlockChoice::explicit_blocks;
  app.inputs.Br = 0;
  app.inputs.Bc = 0;
  app.inputs_changed();
  CHECK(app.input_error.empty());
  REQUIRE_FALSE(app.played.rec->derived.empty());
  CHECK(app.played.rec->derived[0].find("derived from M") != std::string::npos);
  CHECK(app.played.rec->Br > 0);
  CHECK(app.played.rec->Bc > 0);
  CHECK(app.status.find("derived from M") != std::string::npos);
  CHECK(app.status_severity == Severity::info);
}

TEST_CASE("app state: a large recording runs in the background and can be cancelled") {
  AppState app;
  REQUIRE(app.open_lesson("online"));
  const auto small = app.played.rec;
  set_vector(app.inputs, {random_vector(90000, 1)});
  app.inputs_changed();
  CHECK(app.job.busy());
  app.cancel_recording();
  for (int i = 0; i < 2000 && app.job.busy(); ++i) {
    app.tick(0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK_FALSE(app.job.busy());
  CHECK(app.played.rec == small);  // cancelled: the previous recording stays

  app.inputs_changed();  // again, to the end this time
  for (int i = 0; i < 4000 && app.job.busy(); ++i) {
    app.tick(0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(app.played.rec->step_count() == 180000);
}

TEST_CASE("app state: compare records both algorithms on the lesson's input") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("safe"));
  app.tab = Tab::compare;
  app.compare.dirty = true;
  app.tick(0.0);
  CHECK(app.compare.error.empty());
  CHECK(app.compare.left.rec->step_count() == 12);
  CHECK(app.compare.right.rec->step_count() == 8);
  CHECK(app.compare.timeline.count() == 12);
  app.seek_active(10);
  app.sync_cursor();
  CHECK(app.compare.left.cursor->position() == 10);
  CHECK(app.compare.right.cursor->position() == 7);  // online finished
  CHECK(app.compare.left.rec->io.hbm_reads > app.compare.right.rec->io.hbm_reads);
}

TEST_CASE("inputs: the attention presets make a score overflow to -inf in every precision, and the guard keeps rows finite") {
  const std::vector<Algorithm> algos = rows::taking_qkv();  // every row that takes Q, K, V
  for (Precision p : kAllPrecisions)
    for (Algorithm a : algos) {
      CAPTURE(precision_name(p));
      CAPTURE(algorithm_id(a));
      Inputs in;
      in.algorithm = a;
      in.precision = p;
      in.scale = ScaleChoice::inv_sqrt_d;
      // "a score overflows to −∞": q₁ · k₁ is −∞, row 1 is the softmax of its other scores.
      set_attention_preset(in, 0);
      CHECK(in.N == 4);
      CHECK(in.d == 2);
      const Recording one = record(scenario_from(in));
      const int bS = one.find_buffer("S");
      REQUIRE(bS >= 0);
      const State end = replay(one, one.step_count() - 1);
      CHECK(end.at(bS, 0, 0, 4) == -std::numeric_limits<double>::infinity());
      for (Eigen::Index k = 0; k < one.output().size(); ++k) CHECK(std::isfinite(one.output().data()[k]));
      // Row 1's other scores are 1·1, 1·(−1), 1·0.5, scaled by 1/√2: O₁ is their softmax mix of
      // v₂, v₃, v₄ (the −∞ score's v₁ weighs 0). Plain long double here.
      const long double s = 1.0L / std::sqrt(2.0L);
      const long double w2 = std::exp(s * 1), w3 = std::exp(s * -1), w4 = std::exp(s * 0.5L), l = w2 + w3 + w4;
      const long double o0 = (w2 * 0 + w3 * 1 + w4 * -1) / l, o1 = (w2 * 1 + w3 * 1 + w4 * 2) / l;
      // Error budget in unit roundoffs u of the format: the scale and each score rounded (2u),
      // exp (4u with its rounding), l a sum of 3 terms (2u), o a sum of 3 products (3u) and one
      // division (u): under 16u relative on values of at most 2, so 32u absolute.
      const double u = std::ldexp(1.0, p == Precision::fp64 ? -53 : p == Precision::fp32 ? -24 : p == Precision::fp16 ? -11 : -8);
      const double tol = 32 * u;
      CHECK(std::fabs(one.output()(0, 0) - static_cast<double>(o0)) <= tol);
      CHECK(std::fabs(one.output()(0, 1) - static_cast<double>(o1)) <= tol);
      // "a row with no finite score": row 1 has no probability mass.
      set_attention_preset(in, 1);
      const Recording none = record(scenario_from(in));
      CHECK(none.output()(0, 0) == 0.0);
      CHECK(none.output()(0, 1) == 0.0);
      CHECK(none.l()[0] == 0.0);
      CHECK(none.m()[0] == -std::numeric_limits<double>::infinity());
      for (Eigen::Index r = 1; r < 4; ++r) CHECK(std::isfinite(none.output()(r, 0)));
    }
}

namespace {

bool logged(const AppState& app, const std::string& part) {
  for (const LogEntry& e : app.log)
    if (e.text.find(part) != std::string::npos) return true;
  return false;
}


}  // namespace

TEST_CASE("app state: a lesson left and opened again has its own inputs and playhead back, and its example on request") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("online"));
  const std::vector<std::vector<double>> example = app.inputs.x;
  REQUIRE(edit_vector_text(app.inputs, "7, 1, 8, 2, 8"));
  app.inputs_edited();
  REQUIRE(app.input_error.empty());
  app.seek(6);
  // An accidental ↓ and ↑: the pasted vector and the playhead are where they were.
  REQUIRE(app.open_lesson("safe"));
  CHECK(app.scenario.algorithm == Algorithm::safe);
  REQUIRE(app.open_lesson("online"));
  CHECK(app.inputs.x == std::vector<std::vector<double>>{{7, 1, 8, 2, 8}});
  CHECK(app.scenario.x == std::vector<std::vector<double>>{{7, 1, 8, 2, 8}});
  CHECK(app.timeline.playhead() == 6);
  CHECK(app.played.cursor->position() == 6);
  // The other lessons open on their own examples, untouched.
  REQUIRE(app.open_lesson("safe"));
  CHECK(app.inputs.x == lessons()[static_cast<std::size_t>(app.lesson)].scenario.x);
  CHECK(app.timeline.playhead() == 0);

  // Back to the example, undoably.
  REQUIRE(app.open_lesson("online"));
  CHECK(app.reset_inputs());
  CHECK(app.inputs.x == example);
  CHECK_FALSE(app.reset_inputs());  // already the example
  CHECK(app.undo_inputs());
  CHECK(app.inputs.x == std::vector<std::vector<double>>{{7, 1, 8, 2, 8}});
  CHECK(app.redo_inputs());
  CHECK(app.inputs.x == example);
}

TEST_CASE("app state: Ctrl+Z undoes input changes that took effect, per lesson, and Ctrl+Shift+Z redoes them") {
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-naive"));
  const int n0 = app.inputs.N;
  CHECK_FALSE(app.can_undo());
  app.inputs.N = n0 + 2;
  app.inputs_edited();
  app.inputs.d = 3;
  app.inputs_edited();
  // A refused value replaced nothing: there is nothing of it to undo.
  app.inputs.N = kMaxAttentionN * 4;
  app.inputs_edited();
  REQUIRE_FALSE(app.input_error.empty());
  CHECK(app.scenario.n == n0 + 2);

  CHECK(app.undo_inputs());  // d = 3 → the d before, N = n0 + 2 stays
  CHECK(app.input_error.empty());
  CHECK(app.scenario.n == n0 + 2);
  CHECK(app.scenario.d != 3);
  CHECK(app.undo_inputs());
  CHECK(app.scenario.n == n0);
  CHECK_FALSE(app.undo_inputs());
  CHECK(app.redo_inputs());
  CHECK(app.scenario.n == n0 + 2);

  // Another lesson has its own history: nothing to undo there, and this one's is kept.
  REQUIRE(app.open_lesson("safe"));
  CHECK_FALSE(app.can_undo());
  CHECK_FALSE(app.undo_inputs());
  REQUIRE(app.open_lesson("attn-naive"));
  CHECK(app.scenario.n == n0 + 2);
  CHECK(app.can_undo());
  CHECK(app.can_redo());
  // A new change forgets what could be redone.
  app.inputs.causal = !app.inputs.causal;
  app.inputs_edited();
  CHECK_FALSE(app.can_redo());
}

TEST_CASE("app state: a background recording dropped by a lesson switch is logged, the status bar stops saying Recording, and the lesson keeps the inputs asked for") {
  AppState app;
  REQUIRE(app.open_lesson("online"));
  set_vector(app.inputs, {random_vector(90000, 3)});
  app.inputs_edited();
  REQUIRE(app.job.active());
  CHECK(app.status_line().text.find("Recording about") != std::string::npos);
  REQUIRE(app.open_lesson("safe"));
  CHECK(logged(app, "background recording of online (about 180000 steps) was cancelled: lesson safe was opened"));
  CHECK(app.status_line().text.find("Recording") == std::string::npos);
  CHECK_FALSE(app.job.active());
  wait_for_job(app);
  // The dropped job is not the user's cancel: the safe lesson's inputs are in use.
  CHECK(app.input_error.empty());
  CHECK(app.scenario.algorithm == Algorithm::safe);

  // Back in online, the 90000 values asked for are recorded again.
  REQUIRE(app.open_lesson("online"));
  CHECK(app.inputs.x[0].size() == 90000);
  wait_for_job(app);
  CHECK(app.played.rec->step_count() == 180000);
  CHECK(app.can_undo());  // the edit counts from when it was asked for
  CHECK(app.undo_inputs());
  CHECK(app.scenario.x == lessons()[static_cast<std::size_t>(app.lesson)].scenario.x);
  CHECK(app.redo_inputs());
  wait_for_job(app);
  CHECK(app.scenario.x[0].size() == 90000);
  // Newer inputs replacing a running recording are logged too.
  app.background_allowed = true;
  set_vector(app.inputs, {random_vector(90000, 4)});
  app.inputs_edited();
  REQUIRE(app.job.active());
  set_vector(app.inputs, {random_vector(90000, 5)});
  app.inputs_edited();
  CHECK(logged(app, "was cancelled: newer inputs replace it"));
  wait_for_job(app);
  CHECK(app.scenario.x == std::vector<std::vector<double>>{random_vector(90000, 5)});
  CHECK(app.input_error.empty());
}
