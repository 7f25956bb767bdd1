// Scenario files in the window: what is saved comes back as the same Recording, playhead, lesson
// and layout; a file that cannot be used is refused with a message and the work stays open.
#include "tests/app/drive.h"
#include "tests/temp_dir.h"
#include "tests/tolerance.h"
#include "app/files.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "core/algorithms.h"
#include "core/lessons.h"
#include "core/report.h"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unistd.h>

using namespace flashstep;
using namespace flashstep::ui;
namespace fs = std::filesystem;

namespace {

// Bitwise: every output entry and every final m, l, NaN equal to NaN.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_same_recording(const Recording& a, const Recording& b) {
  REQUIRE(a.step_count() == b.step_count());
  REQUIRE(a.output().rows() == b.output().rows());
  REQUIRE(a.output().cols() == b.output().cols());
  for (Eigen::Index i = 0; i < a.output().rows(); ++i)
    for (Eigen::Index j = 0; j < a.output().cols(); ++j) CHECK(same_bits(a.output()(i, j), b.output()(i, j)));
  REQUIRE(a.m().size() == b.m().size());
  for (std::size_t i = 0; i < a.m().size(); ++i) CHECK(same_bits(a.m()[i], b.m()[i]));
  for (std::size_t i = 0; i < a.l().size(); ++i) CHECK(same_bits(a.l()[i], b.l()[i]));
  // Every step's label, text and counters as `flashstep run` writes them.
  CHECK(recording_json(a, true, true).dump() == recording_json(b, true, true).dump());
}

// A window's state that records on the calling thread, so every recording is there at once.
struct Fresh : AppState {
  Fresh() { background_allowed = false; }
};

}  // namespace

TEST_CASE("document: every lesson saved mid-way and opened in a fresh window gives the same recording and playhead") {
  TempDir dir("doc");
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    Fresh a;
    a.open_lesson(l.id);
    // Change the preset so the file has to carry the change.
    if (takes_qkv(a.inputs.algorithm)) {
      a.inputs.N = 10;
      a.inputs.seed = 42;
      a.inputs.causal = true;
    } else {
      edit_vector_text(a.inputs, "1.5, -2, 7, 0.25, 3");
      a.inputs.precision = Precision::bf16;
    }
    a.inputs_changed();
    REQUIRE(a.input_error.empty());
    a.seek(a.timeline.count() / 2);
    a.panels.memory = false;
    a.panels.log = true;
    const std::string path = dir.file((l.id + ".json").c_str());
    REQUIRE(save_document(a, path));
    CHECK(a.document_path == path);

    Fresh b;
    REQUIRE(open_document(b, path));
    CHECK(b.status_severity == Severity::info);
    CHECK(b.current_lesson().id == l.id);
    CHECK(b.timeline.playhead() == a.timeline.playhead());
    CHECK(b.played.cursor->position() == a.played.cursor->position());
    CHECK(b.tab == a.tab);
    CHECK_FALSE(b.panels.memory);
    CHECK(b.panels.log);
    CHECK(b.compare.a == a.compare.a);
    CHECK(b.compare.b == a.compare.b);
    check_same_recording(*a.played.rec, *b.played.rec);
    CHECK(b.recent_files.front() == fs::absolute(path).lexically_normal().string());
  }
}

TEST_CASE("document: explicit Q, K, V in a scenario file are used as they are and saved again") {
  TempDir dir("doc");
  const std::string path = dir.file("qkv.json");
  write(path, R"({"flashstep_scenario": 1, "lesson": "attn-naive", "playhead": 3,
    "scenario": {"algorithm": "attn-naive",
      "q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [2, 0]], "v": [[1, 2], [3, 4], [5, 6]]}})");
  Fresh app;
  REQUIRE(open_document(app, path));
  const Recording& rec = *app.played.rec;
  REQUIRE(rec.output().rows() == 3);
  REQUIRE(rec.output().cols() == 2);
  CHECK(app.timeline.playhead() == 3);
  // Row 0 by hand: scores q0·k = (1, 0, 2), softmax, times V.
  const long double s[3] = {1, 0, 2};
  long double den = 0, o[2] = {0, 0};
  const long double v[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  for (int j = 0; j < 3; ++j) den += std::exp(s[j] - 2);
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 2; ++c) o[c] += std::exp(s[j] - 2) / den * v[j][c];
  flashstep::Scenario sc;
  sc.algorithm = flashstep::Algorithm::attn_naive;
  sc.q = {{1, 0}, {0, 1}, {1, 1}};
  sc.k = {{1, 0}, {0, 1}, {2, 0}};
  sc.v = {{1, 2}, {3, 4}, {5, 6}};
  const flashstep::Resolved r = flashstep::resolve(sc);
  const double tol =
      tolerance::attention_row(r.scenario.algorithm, r.q, r.k, r.v, 0, r.scale, false, r.Tc, r.scenario.precision,
                               tolerance::Exp::cpu)
          .output;
  CHECK(std::fabs(rec.output()(0, 0) - static_cast<double>(o[0])) <= tol);
  CHECK(std::fabs(rec.output()(0, 1) - static_cast<double>(o[1])) <= tol);

  const std::string again = dir.file("again.json");
  REQUIRE(save_document(app, again));
  Fresh b;
  REQUIRE(open_document(b, again));
  CHECK(b.inputs.q == app.inputs.q);
  check_same_recording(rec, *b.played.rec);
}

TEST_CASE("document: a file that cannot be used is refused with a message and the current work stays open") {
  TempDir dir("doc");
  struct Bad {
    const char* name;
    const char* text;
    const char* says;  // part of the message
  };
  const Bad bad[] = {
      {"not-json.json", "{ this is not json", "not JSON"},
      {"newer.json", R"({"flashstep_scenario": 99, "scenario": {}})", "newer"},
      {"lesson.json", R"({"flashstep_scenario": 1, "lesson": "no-such-lesson", "scenario": {}})", "no-such-lesson"},
      {"field.json", R"({"flashstep_scenario": 1, "scenario": {"n": "eight"}})", "\"n\""},
      {"too-big.json", R"({"flashstep_scenario": 1, "scenario": {"algorithm": "attn-tiled", "n": 100000, "d": 64}})",
       "N = 100000"},
      {"layout.json", R"({"flashstep_scenario": 1, "scenario": {}, "layout": {"tab": "nowhere"}})", "layout.tab"},
      {"panels.json", R"({"flashstep_scenario": 1, "scenario": {}, "layout": {"panels": {"view": 3}}})",
       "layout.panels.view"},
      {"empty.json", "", "empty"},
      // A few bytes that ask for 2^56 random values, and for 2^28 at the engine's own limit:
      // refused before anything is built.
      {"huge.json", R"({"algorithm":"online","rows":268435456,"n":268435456})", "at most 100000"},
      {"at-limit.json", R"({"flashstep_scenario": 1, "scenario": {"algorithm": "online", "rows": 16384, "n": 16384}})",
       "at most 100000"},
  };
  Fresh app;
  app.open_lesson("attn-tiled");
  app.inputs.N = 9;
  app.inputs_changed();
  app.seek(5);
  app.panels.log = true;
  const auto rec_before = app.played.rec;
  const Scenario scenario_before = app.scenario;
  for (const Bad& b : bad) {
    CAPTURE(std::string(b.name));
    CAPTURE(app.status);
    const std::string path = dir.file(b.name);
    write(path, b.text);
    CHECK_FALSE(open_document(app, path));
    CHECK(app.status_severity == Severity::error);
    CHECK(app.status.find(b.name) != std::string::npos);
    CHECK(app.status.find(b.says) != std::string::npos);
    CHECK(app.status.find("current work stays open") != std::string::npos);
    CHECK(app.played.rec == rec_before);
    CHECK(app.timeline.playhead() == 5);
    CHECK(app.current_lesson().id == "attn-tiled");
    CHECK(app.inputs.N == 9);
    CHECK(app.panels.log);
    CHECK(app.document_path.empty());
  }
  // A named pipe would block open() forever; a folder is not a file either.
  const std::string fifo = dir.file("pipe.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(open_document(app, fifo));
  CHECK(app.status.find("not a regular file") != std::string::npos);
  CHECK_FALSE(open_document(app, dir.path.string()));
  CHECK(app.status.find("folder") != std::string::npos);
  CHECK(app.played.rec == rec_before);
  CHECK_FALSE(open_document(app, dir.file("missing.json")));
  CHECK(app.status.find("missing.json") != std::string::npos);
  CHECK(app.played.rec == rec_before);
  CHECK(app.recent_files.empty());
}

TEST_CASE("document: saving to a folder that is not there says so and changes nothing") {
  Fresh app;
  app.open_lesson("online");
  CHECK_FALSE(save_document(app, "/nonexistent-folder/x.json"));
  CHECK(app.status_severity == Severity::error);
  CHECK(app.status.find("/nonexistent-folder/x.json") != std::string::npos);
  CHECK(app.document_path.empty());
  CHECK(app.recent_files.empty());
}

TEST_CASE("document: a bare scenario (as `flashstep run` takes) opens in the first lesson of its algorithm") {
  TempDir dir("doc");
  const std::string path = dir.file("bare.json");
  write(path, R"({"algorithm": "safe", "input": [[1000, 2000, 3000]], "precision": "fp16"})");
  Fresh app;
  app.open_lesson("attn-tiled");
  REQUIRE(open_document(app, path));
  CHECK(app.inputs.algorithm == Algorithm::safe);
  CHECK(app.current_lesson().scenario.algorithm == Algorithm::safe);
  CHECK(app.inputs.x == std::vector<std::vector<double>>{{1000, 2000, 3000}});
  CHECK(app.timeline.playhead() == 0);
}

TEST_CASE("document: the lessons' kept inputs and playheads go to the saved session and come back, and one that cannot is skipped with a notice") {
  Fresh app;
  REQUIRE(app.open_lesson("safe"));
  REQUIRE(edit_vector_text(app.inputs, "4, 9, 1"));
  app.inputs_edited();
  app.seek(5);
  REQUIRE(app.open_lesson("attn-online"));
  app.inputs.N = 6;
  app.inputs.seed = 42;
  app.inputs_edited();
  app.seek(3);
  REQUIRE(app.open_lesson("naive"));
  const Json saved = kept_to_json(app);
  CHECK(saved["lessons"].size() == 2);

  Fresh next;
  REQUIRE(next.open_lesson("naive"));
  std::vector<std::string> notices;
  Json j = Json::parse(saved.dump());
  // A lesson this version does not have is skipped, the others come back.
  Json unknown = j["lessons"][0];
  unknown["lesson"] = "no-such-lesson";
  j["lessons"].push_back(unknown);
  kept_from_json(next, j, notices);
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].find("no-such-lesson") != std::string::npos);
  REQUIRE(next.open_lesson("safe"));
  CHECK(next.scenario.x == std::vector<std::vector<double>>{{4, 9, 1}});
  CHECK(next.timeline.playhead() == 5);
  REQUIRE(next.open_lesson("attn-online"));
  CHECK(next.scenario.n == 6);
  CHECK(next.scenario.seed == 42);
  CHECK(next.timeline.playhead() == 3);

  notices.clear();
  kept_from_json(next, Json::array(), notices);
  CHECK(notices.size() == 1);
}

TEST_CASE("document: opening a file over a lesson's own inputs leaves them a Ctrl+Z away") {
  Fresh app;
  REQUIRE(app.open_lesson("online"));
  REQUIRE(edit_vector_text(app.inputs, "2, 7, 1"));
  app.inputs_edited();
  ScenarioDocument doc;
  doc.lesson = "online";
  doc.scenario = lessons()[static_cast<std::size_t>(app.lesson)].scenario;
  doc.scenario.x = {{5, 5, 6}};
  std::string error;
  REQUIRE(apply_document(app, doc, error));
  CHECK(app.scenario.x == std::vector<std::vector<double>>{{5, 5, 6}});
  REQUIRE(app.undo_inputs());
  CHECK(app.scenario.x == std::vector<std::vector<double>>{{2, 7, 1}});
}

namespace {
// Polls as the frame loop does, until the file is applied or refused.
bool wait_open(AppState& app) {
  bool opened = false;
  for (int i = 0; i < 6000 && app.opening.busy(); ++i) {
    opened = poll_open_document(app);
    if (!app.opening.busy()) break;
    usleep(5000);
  }
  return opened || poll_open_document(app);
}
}  // namespace

TEST_CASE("document: a file is read and parsed off the UI thread, a large one can be cancelled, and a refused one leaves the work open") {
  TempDir dir("open");
  Fresh app;
  REQUIRE(app.open_lesson("online"));
  const auto before = app.played.rec;

  // A good file opens by the frame after it is read.
  const std::string good = (dir.path / "good.json").string();
  write(good, R"({"algorithm":"safe","input":[[4,1,3]]})");
  begin_open_document(app, good);
  CHECK(wait_open(app));
  CHECK(app.scenario.algorithm == Algorithm::safe);
  CHECK(app.document_path == good);

  // About 24 MB of JSON: 2,000,000 values, more than the window takes, refused with the limit.
  std::string big = R"({"algorithm":"online","input":[[)";
  big.reserve(26u << 20);
  for (int i = 0; i < 2000000; ++i) big += i ? ",1.2345678901" : "1.2345678901";
  big += "]]}";
  const std::string large = (dir.path / "large.json").string();
  write(large, big);
  const auto opened = app.played.rec;
  begin_open_document(app, large);
  CHECK(app.opening.busy());  // the call returned while the file is still being read
  CHECK_FALSE(wait_open(app));
  CHECK(app.played.rec == opened);
  CHECK(app.status.find("Not opened") != std::string::npos);
  CHECK(app.status.find("2000000 values") != std::string::npos);

  // Cancelled: nothing changes and nothing is said to be wrong.
  begin_open_document(app, large);
  app.opening.cancel();
  const std::string status = app.status;
  CHECK_FALSE(wait_open(app));
  CHECK(app.played.rec == opened);
  CHECK(app.status == status);

  // A pipe, a folder and a missing file: refused with their reason, without blocking.
  const std::string fifo = (dir.path / "pipe.json").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo, dir.path.string(), (dir.path / "missing.json").string()}) {
    begin_open_document(app, path);
    CHECK_FALSE(wait_open(app));
    CHECK(app.status.find("Not opened: cannot read " + path) != std::string::npos);
  }
  CHECK(app.played.rec == opened);
}

TEST_CASE("document: a file that opens on Compare without naming a pair shows the lesson's pair, and one that names it shows that pair") {
  TempDir dir("doc");
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    const std::string path = dir.file("compare.json");
    write(path, R"({"flashstep_scenario": 1, "lesson": ")" + l.id + R"(", "layout": {"tab": "compare"}})");
    Fresh app;  // a fresh window's pair is safe vs online, whatever lesson the file opens
    REQUIRE(open_document(app, path));
    CHECK(app.tab == Tab::compare);
    const AlgorithmInfo& row = info(l.scenario.algorithm);
    CHECK(app.compare.a == row.compare_a);
    CHECK(app.compare.b == row.compare_b);
  }
  const std::string path = dir.file("pair.json");
  write(path, R"({"flashstep_scenario": 1, "lesson": "attn-tiled-v2",
                  "layout": {"tab": "compare", "compare": {"a": "attn-naive", "b": "attn-tiled-v2"}}})");
  Fresh app;
  REQUIRE(open_document(app, path));
  CHECK(app.compare.a == Algorithm::attn_naive);
  CHECK(app.compare.b == Algorithm::attn_tiled_v2);
}
