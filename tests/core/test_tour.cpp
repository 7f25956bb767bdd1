// Guided tours (core/tour.h): every lesson's tour loads and lands on its events in its preset's
// recording and in recordings of other inputs; each landing is checked against the event's
// property computed here from the recording's states (replay), not by the resolver; the
// placeholders are recomputed from the states; bad tours are refused with one exact line.
#include "core/tour.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/text.h"
#include "tests/notation.h"

#include <doctest/doctest.h>

#include <set>

#include <cmath>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

// The states before and after every step, from the plain replay.
struct States {
  std::vector<State> after;  // after[k + 1]: after step k; after[0]: before the first
  explicit States(const Recording& rec) {
    for (int k = -1; k < rec.step_count(); ++k) after.push_back(replay(rec, k));
  }
  const State& before_step(int k) const { return after[static_cast<std::size_t>(k)]; }
  const State& after_step(int k) const { return after[static_cast<std::size_t>(k + 1)]; }
};

bool cell_defined(const State& s, int b, std::size_t i) { return s.defined[static_cast<std::size_t>(b)][i] != 0; }
double cell(const State& s, int b, std::size_t i) { return s.values[static_cast<std::size_t>(b)][i]; }

// Whether step k has the event's property, from the states and the step's fields alone.
bool has_property(const Recording& rec, const States& st, const TourEvent& e, int k) {
  using K = TourEvent::Kind;
  const Step& s = rec.steps[static_cast<std::size_t>(k)];
  const int b = e.buffer.empty() ? -1 : rec.find_buffer(e.buffer);
  const State& before = st.before_step(k);
  const State& after = st.after_step(k);
  auto any_cell = [&](int buffer, auto pred) {
    for (int bb = 0; bb < static_cast<int>(rec.buffers.size()); ++bb) {
      if (buffer >= 0 && bb != buffer) continue;
      const std::size_t cells = after.values[static_cast<std::size_t>(bb)].size();
      for (std::size_t i = 0; i < cells; ++i)
        if (pred(bb, i)) return true;
    }
    return false;
  };
  switch (e.kind) {
    case K::first_step: return k == 0;
    case K::last_step: return k == rec.step_count() - 1;
    case K::pass_begins: return s.pass == e.k;
    case K::last_pass_begins: {
      int last = 0;
      for (const Step& x : rec.steps) last = std::max(last, x.pass);
      return s.pass == last;
    }
    case K::row_begins: return s.row == e.k - 1;
    case K::tile: return s.tile_i == e.i - 1 && s.tile_j == e.j - 1;
    case K::first_rescale:
      return any_cell(b, [&](int bb, std::size_t i) {
        return cell_defined(before, bb, i) && std::isfinite(cell(before, bb, i)) && cell_defined(after, bb, i) &&
               cell(after, bb, i) != cell(before, bb, i);
      });
    case K::change:
      return any_cell(b, [&](int bb, std::size_t i) {
        const bool d0 = cell_defined(before, bb, i), d1 = cell_defined(after, bb, i);
        if (d0 != d1) return true;
        if (!d1) return false;
        const double x = cell(before, bb, i), y = cell(after, bb, i);
        return !(x == y || (std::isnan(x) && std::isnan(y)));
      });
    case K::first_write:
      // Written to B, not kept on chip: a kept region is the same block as a write of B.
      for (const Region& g : s.writes) {
        bool kept = false;
        for (const Region& k : s.kept)
          kept |= k.buffer == g.buffer && k.r0 == g.r0 && k.r1 == g.r1 && k.c0 == g.c0 && k.c1 == g.c1;
        if (g.buffer == b && !kept) return true;
      }
      return false;
    case K::first_overflow:
      return any_cell(-1, [&](int bb, std::size_t i) {
        const double y = cell(after, bb, i);
        const bool bad = std::isnan(y) || (std::isinf(y) && y > 0);
        if (!cell_defined(after, bb, i) || !bad) return false;
        const double x = cell(before, bb, i);
        return !cell_defined(before, bb, i) || !(x == y || (std::isnan(x) && std::isnan(y)));
      });
  }
  return false;
}

// The step the event names: the first with its property (the K-th for a change), −1 if none.
int expected_step(const Recording& rec, const States& st, const TourEvent& e) {
  int seen = 0;
  for (int k = 0; k < rec.step_count(); ++k)
    if (has_property(rec, st, e, k)) {
      if (e.kind == TourEvent::Kind::change && ++seen < e.k) continue;
      return k;
    }
  return -1;
}

// The placeholders filled from the states, written here as a reader of the text would.
std::string expected_text(const Recording& rec, const States& st, const std::string& text, int k, int row) {
  const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l"), bx = rec.find_buffer("x");
  auto reg = [&](int b, const State& s) -> std::string {
    if (b < 0) return "—";
    const std::size_t i = static_cast<std::size_t>(row);
    return cell_defined(s, b, i) ? num(cell(s, b, i)) : "—";
  };
  const Step& s = rec.steps[static_cast<std::size_t>(k)];
  int xi = -1;
  for (const Region& g : s.reads)
    if (g.buffer == bx && g.r0 <= row && row < g.r1 && xi < 0) xi = g.c0;
  std::string out;
  for (std::size_t p = 0; p < text.size();) {
    const bool markup = p > 0 && (text[p - 1] == '^' || text[p - 1] == '_');
    if (text[p] != '{' || markup) {
      out += text[p++];
      continue;
    }
    const std::size_t close = text.find('}', p);
    const std::string name = text.substr(p + 1, close - p - 1);
    p = close + 1;
    const State& before = st.before_step(k);
    const State& after = st.after_step(k);
    if (name == "m") out += reg(bm, after);
    else if (name == "m_old") out += reg(bm, before);
    else if (name == "l") out += reg(bl, after);
    else if (name == "l_old") out += reg(bl, before);
    else if (name == "factor") {
      const std::size_t i = static_cast<std::size_t>(row);
      const double m0 = cell(before, bm, i), m1 = cell(after, bm, i);
      out += num(std::exp(m0 - m1));
    } else if (name == "x") out += num(cell(after, bx, static_cast<std::size_t>(row * rec.buffers[bx].cols + xi)));
    else if (name == "i") out += std::to_string(xi + 1);
    else if (name == "tile") out += "(" + std::to_string(s.tile_i + 1) + ", " + std::to_string(s.tile_j + 1) + ")";
    else if (name == "step") out += std::to_string(k + 1);
    else if (name == "pass") out += rec.pass_names[static_cast<std::size_t>(s.pass - 1)];
    else if (name == "row") out += std::to_string(row + 1);
    else if (name == "N") out += std::to_string(rec.n);
    else if (name == "hbm") out += std::to_string(s.io.hbm_reads + s.io.hbm_writes);
    else out += "{" + name + "}";
  }
  return out;
}

// Another input for the lesson's algorithm: other length and seed (the random input).
Scenario other_input(const Scenario& preset, int n, std::uint64_t seed) {
  Scenario s = preset;
  s.x.clear();
  s.q.clear(), s.k.clear(), s.v.clear(), s.d_o.clear();
  s.n = n;
  s.seed = seed;
  return s;
}

std::string tour_error(const std::string& text) {
  try {
    parse_tour_file("lecture.json", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tour: every lesson has a tour of 5 to 12 stops and a one-line takeaway, in the screen's notation as its summary is") {
  REQUIRE(!lessons().empty());
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    CHECK(l.tour.stops.size() >= 5);
    CHECK(l.tour.stops.size() <= 12);
    CHECK(!l.tour.takeaway.empty());
    CHECK(l.tour.takeaway.find('\n') == std::string::npos);
    CHECK(notation::ascii_form(l.tour.takeaway) == "");
    CHECK(notation::ascii_form(l.summary) == "");  // the lesson list's, from the same file
  }
}

TEST_CASE("tour: every stop happens in its lesson's preset, on a step with the event's property") {
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    const Recording rec = record(l.scenario);
    const States st(rec);
    CHECK_NOTHROW(check_tour(l.tour, rec, l.id));
    for (std::size_t s = 0; s < l.tour.stops.size(); ++s) {
      const TourStop& stop = l.tour.stops[s];
      CAPTURE(s);
      CAPTURE(stop.at.text);
      const int k = event_step(rec, stop.at);
      REQUIRE(k >= 0);
      CHECK(k == expected_step(rec, st, stop.at));
      // A buffer target has cells at that step, and the text has no value left out.
      if (stop.point.kind == TourTarget::Kind::buffer) CHECK(target_cells(rec, stop.point, k, stop.at).found);
      const int row = event_row(rec, stop.at, k);
      const std::string text = fill_tour_text(rec, stop.text, k, row);
      CHECK(text.find("—") == std::string::npos);
      CHECK(text == expected_text(rec, st, stop.text, k, row));
      // In the notation the screen shows (Kᵀ, Oᵢ⁽ʲ⁾, m₁), not an ASCII stand-in for it.
      CHECK(notation::ascii_form(text) == "");
    }
  }
}

TEST_CASE("tour: with other inputs every stop still lands on its event, or is skipped because none happens") {
  for (const Lesson& l : lessons()) {
    for (const auto& input : {std::pair<int, std::uint64_t>{5, 3}, {13, 11}}) {
      const int n = input.first;
      const std::uint64_t seed = input.second;
      CAPTURE(l.id);
      CAPTURE(n);
      const Recording rec = record(other_input(l.scenario, n, seed));
      const States st(rec);
      for (const TourStop& stop : l.tour.stops) {
        CAPTURE(stop.at.text);
        const int k = event_step(rec, stop.at);
        CHECK(k == expected_step(rec, st, stop.at));
        if (k < 0) continue;
        CHECK(has_property(rec, st, stop.at, k));
        const int row = event_row(rec, stop.at, k);
        CHECK(fill_tour_text(rec, stop.text, k, row) == expected_text(rec, st, stop.text, k, row));
      }
    }
  }
}

TEST_CASE("tour: the first rescale's placeholders in the online lesson's preset [3, 2, 5, 1]") {
  // m goes 3, 3, 5, 5: the rescale is step 3, where x₃ = 5 replaces m = 3; l₂ = 1 + e^{−1}
  // is multiplied by e^{3 − 5} and e^{0} is added.
  const Recording rec = record(find_lesson("online")->scenario);
  TourEvent e;
  e.kind = TourEvent::Kind::first_rescale;
  e.buffer = "m";
  REQUIRE(event_step(rec, e) == 2);
  const long double l = (1.0L + std::exp(-1.0L)) * std::exp(-2.0L) + 1.0L;
  CHECK(fill_tour_text(rec, "{i} {x} {m_old} {m} {factor} e^{x}", 2, 0) ==
        "3 5 3 5 " + num(static_cast<double>(std::exp(-2.0L))) + " e^{x}");
  CHECK(fill_tour_text(rec, "{l}", 2, 0) == num(static_cast<double>(static_cast<float>(l))));
}

TEST_CASE("tour: a bad tour file is refused with one line naming the file, the stop and the field") {
  const std::string stop = R"j({"at": "first step", "point": {"register": "m"}, "text": "m = {m}."})j";
  auto file = [&](const std::string& stops) {
    return R"j({"lesson": "online", "takeaway": "One line.", "stops": [)j" + stops + "]}";
  };
  CHECK(tour_error(file(stop)).empty());
  CHECK(tour_error(file(stop + R"j(, {"at": "pass x begins", "point": {"register": "m"}, "text": "t"})j")) ==
        "lecture.json: tour.stops[1].at = \"pass x begins\": the pass is a whole number from 1");
  CHECK(tour_error(file(R"j({"at": "the rescale", "point": {"register": "m"}, "text": "t"})j")) ==
        std::string("lecture.json: tour.stops[0].at = \"the rescale\": use ") + tour_event_forms());
  CHECK(tour_error(file(R"j({"at": "tile (1)", "point": {"register": "m"}, "text": "t"})j")) ==
        "lecture.json: tour.stops[0].at = \"tile (1)\": write \"tile (I, J)\" with whole numbers from 1");
  CHECK(tour_error(file(R"j({"at": "first step", "point": {"panel": "Inputs"}, "text": "t"})j")) ==
        "lecture.json: tour.stops[0].point.panel = \"Inputs\": use View, Pseudocode or Memory");
  CHECK(tour_error(file(R"j({"at": "first step", "point": {"buffer": "m", "cells": "some"}, "text": "t"})j")) ==
        "lecture.json: tour.stops[0].point.cells = \"some\": use written, read, row, tile, all or event");
  CHECK(tour_error(file(R"j({"at": "first step", "point": {"register": "m"}, "text": "m is {mm}"})j")) ==
        "lecture.json: tour.stops[0].text: {mm} is not a placeholder; use {m}, {m_old}, {l}, {l_old}, {factor}, "
        "{x}, {i}, {tile}, {step}, {pass}, {row}, {N}, {hbm}");
  CHECK(tour_error(file(R"j({"at": "first step", "point": {"register": "m"}, "txt": "t"})j")) ==
        "lecture.json: tour.stops[0]: \"txt\" is not a field here; use at, point, text");
  CHECK(tour_error(file("")) == "lecture.json: tour.stops: a list of stops {\"at\": ..., \"point\": ..., \"text\": ...}");
  CHECK(tour_error(R"j({"stops": [], "takeaway": "x"})j") == "lecture.json: no \"lesson\"");
  CHECK(tour_error("{\"lesson\": ") == "lecture.json: not JSON (syntax error at byte 12)");

  // Against a recording: a buffer it does not have, a pass beyond its fixed passes.
  const Recording rec = record(find_lesson("online")->scenario);
  auto checked = [&](const std::string& stops) -> std::string {
    try {
      check_tour(parse_tour_file("lecture.json", file(stops)), rec, "lecture.json: tour");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(checked(R"j({"at": "pass 9 begins", "point": {"register": "m"}, "text": "t"})j") ==
        "lecture.json: tour.stops[0].at = \"pass 9 begins\": this lesson has 2 passes");
  CHECK(checked(R"j({"at": "first write of S", "point": {"register": "m"}, "text": "t"})j") ==
        "lecture.json: tour.stops[0].at = \"first write of S\": this lesson's recording has no buffer S");
  CHECK(checked(R"j({"at": "first step", "point": {"buffer": "O"}, "text": "t"})j") ==
        "lecture.json: tour.stops[0].point.buffer = \"O\": this lesson's recording has no such buffer");
}

TEST_CASE("tour: a lesson file's bad tour names the lesson file") {
  const LessonFile f{"assets/lessons/online.json",
                     R"j({"id": "online", "place": 30, "title": "Online softmax", "summary": "m and l.", "tab": "lesson",
                         "backend": "cpu", "scenario": {"algorithm": "online", "input": [[3, 2, 5, 1]]},
                         "tour": {"stops": [{"at": "first step", "point": {"register": "m"}, "text": "t"},
                                            {"at": "first step", "point": {"register": "m"}, "text": "t"},
                                            {"at": "first step", "point": {"register": "m"}, "text": "t"},
                                            {"at": "pass 9", "point": {"register": "m"}, "text": "t"}],
                                  "takeaway": "x"}})j"};
  try {
    parse_lesson(f);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == std::string("assets/lessons/online.json: tour.stops[3].at = \"pass 9\": use ") +
                                       tour_event_forms());
  }
}

TEST_CASE("tour: a stop on what a step writes outlines every region of it, not the first: the chunked workers") {
  // The chunked lesson's first stop says every worker folds an element into its own (m, l):
  // the step writes one cell of m_tree per worker, and the outline takes them all.
  const Lesson* chunked = find_lesson("chunked");
  REQUIRE(chunked);
  const Recording rec = record(chunked->scenario);
  REQUIRE(rec.chunks >= 2);
  const TourStop& first = chunked->tour.stops.front();
  REQUIRE(first.point.name == "m_tree");
  const int k = event_step(rec, first.at);
  const TargetCells c = target_cells(rec, first.point, k, first.at);
  REQUIRE(c.found);
  CHECK(1 + static_cast<int>(c.also.size()) == rec.chunks);
  std::set<int> workers = {c.c0};
  for (const Region& g : c.also) workers.insert(g.c0);
  CHECK(static_cast<int>(workers.size()) == rec.chunks);
}
