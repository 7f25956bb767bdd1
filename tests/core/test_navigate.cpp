// The step behind a cell (click to jump) and the "Go to…" box (core/navigate.h), against
// recordings built by hand here and the loop order the algorithms are written in.
#include "core/engine.h"
#include "core/navigate.h"

#include <doctest/doctest.h>

using namespace flashstep;

namespace {

// Three steps over a buffer "x" (1 × 4) and "y" (1 × 4): step 1 reads x₁..x₂ and writes y₁,
// step 2 reads x₃..x₄ and writes y₁..y₂, step 3 writes y₄.
Recording by_hand() {
  Recording rec;
  rec.buffers = {BufferInfo("x", 1, 4, Space::hbm), BufferInfo("y", 1, 4, Space::hbm)};
  rec.pass_names = {"sum", "normalize"};
  Step a, b, c;
  a.pass = 1, a.reads = {{0, 0, 0, 1, 2}}, a.writes = {{1, 0, 0, 1, 1}};
  b.pass = 2, b.reads = {{0, 0, 2, 1, 4}}, b.writes = {{1, 0, 0, 1, 2}};
  c.pass = 2, c.writes = {{1, 0, 3, 1, 4}};
  rec.steps = {a, b, c};
  return rec;
}

Scenario softmax(Algorithm a, int rows, int n) {
  Scenario s;
  s.algorithm = a, s.rows = rows, s.n = n, s.seed = 3;
  return s;
}

}  // namespace

TEST_CASE("last_writer: the last write at or before the playhead, else the first one after it") {
  const Recording rec = by_hand();
  CHECK(last_writer(rec, 1, 0, 0, 0) == 0);
  CHECK(last_writer(rec, 1, 0, 0, 1) == 1);
  CHECK(last_writer(rec, 1, 0, 0, 2) == 1);
  CHECK(last_writer(rec, 1, 0, 1, 0) == 1);  // not written yet: the step that will write it
  CHECK(last_writer(rec, 1, 0, 3, 1) == 2);
  CHECK(last_writer(rec, 1, 0, 2, 2) == -1);  // never written
  CHECK(last_writer(rec, 0, 0, 0, 2) == -1);  // an input
  CHECK(last_writer(rec, 1, 0, 0, -1) == 0);  // before the first step
  CHECK(first_reader(rec, 0, 0, 1) == 0);
  CHECK(first_reader(rec, 0, 0, 3) == 1);
  CHECK(first_reader(rec, 1, 0, 0) == -1);
}

TEST_CASE("last_writer on recordings: y of online softmax, O of FlashAttention-2") {
  // Online softmax over n elements: pass 1 is n steps (m, l), pass 2 writes yᵢ at step n + i.
  const int n = 7;
  const Recording on = record(softmax(Algorithm::online, 1, n));
  const int y = on.find_buffer("y");
  REQUIRE(y >= 0);
  for (int i = 0; i < n; ++i) {
    CHECK(last_writer(on, y, 0, i, on.step_count() - 1) == n + i);
    CHECK(last_writer(on, y, 0, i, 0) == n + i);
  }
  const int x = on.find_buffer("x");
  CHECK(first_reader(on, x, 0, 3) == 3);  // pass 1 reads xᵢ at its i-th step
  // m is written by every step of pass 1: its last writer at step k ≤ n − 1 is k.
  const int m = on.find_buffer("m");
  for (int k = 0; k < n; ++k) CHECK(last_writer(on, m, 0, 0, k) == k);

  // FlashAttention-2 with N = 8, Br = Bc = 4: Tr = Tc = 2, outer loop over query blocks i, inner
  // over key blocks j, then Oᵢ written once: steps (1,1), (1,2), write O₁, (2,1), (2,2), write O₂.
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2, s.n = 8, s.d = 2, s.block_rows = 4, s.block_cols = 4, s.seed = 2;
  const Recording fa2 = record(s);
  const int O = fa2.find_buffer("O");
  REQUIRE(O >= 0);
  REQUIRE(fa2.step_count() == 6);
  const int last = fa2.step_count() - 1;
  CHECK(fa2.steps[static_cast<std::size_t>(last_writer(fa2, O, 1, 0, last))].tile_i == 0);
  CHECK(fa2.steps[static_cast<std::size_t>(last_writer(fa2, O, 6, 1, last))].tile_i == 1);
  CHECK(last_writer(fa2, O, 6, 1, last) == 5);
  CHECK(last_writer(fa2, O, 1, 0, last) == 2);
}

TEST_CASE("last_writer answers a click on a 10⁶-step recording without an index") {
  Recording rec;
  rec.buffers = {BufferInfo("y", 1, 1000, Space::hbm)};
  rec.pass_names = {"write"};
  const int steps = 1000000;
  rec.steps.resize(steps);
  for (int k = 0; k < steps; ++k) rec.steps[static_cast<std::size_t>(k)].writes = {{0, 0, k % 1000, 1, k % 1000 + 1}};
  CHECK(last_writer(rec, 0, 0, 17, steps - 1) == 999017);
  CHECK(last_writer(rec, 0, 0, 17, 500) == 17);
}

TEST_CASE("Go to: a step, a pass, a row and a tile, counted from 1 as the window shows them") {
  const Recording on = record(softmax(Algorithm::safe, 3, 5));  // 3 rows × 3 passes × 5 steps
  REQUIRE(on.pass_count() == 3);
  CHECK(parse_go_to(on, "12").step == 11);
  CHECK(parse_go_to(on, " step 1 ").step == 0);
  CHECK(parse_go_to(on, "Step 45").step == 44);
  // The first step of pass 2 is the first of row 1's second pass: step 6.
  CHECK(parse_go_to(on, "pass 2").step == 5);
  CHECK(on.steps[static_cast<std::size_t>(parse_go_to(on, "pass 3").step)].pass == 3);
  CHECK(parse_go_to(on, on.pass_names[2]).step == 10);
  CHECK(parse_go_to(on, "pass " + on.pass_names[1]).step == 5);
  // Rows: each row's passes run one after another, 15 steps a row.
  CHECK(parse_go_to(on, "row 1").step == 0);
  CHECK(parse_go_to(on, "row 3").step == 30);
  CHECK(parse_go_to(on, "ROW 2").step == 15);

  Scenario s;
  s.algorithm = Algorithm::attn_tiled, s.n = 12, s.d = 2, s.block_rows = 3, s.block_cols = 4, s.seed = 2;
  const Recording fa1 = record(s);  // Tr = 4, Tc = 3; K/V blocks outer
  for (const char* text : {"tile (2, 3)", "(2,3)", "tile 2 3", "  ( 2 , 3 ) "}) {
    const GoTo g = parse_go_to(fa1, text);
    CAPTURE(text);
    REQUIRE(g.ok());
    CHECK(fa1.steps[static_cast<std::size_t>(g.step)].tile_i == 1);
    CHECK(fa1.steps[static_cast<std::size_t>(g.step)].tile_j == 2);
    // FA-1's loop: j outer (3 blocks), i inner (4 blocks): tile (2, 3) is step 2·4 + 2 = 10.
    CHECK(g.step == 9);
  }
}

TEST_CASE("Go to refuses anything else with one line naming the problem") {
  const Recording on = record(softmax(Algorithm::online, 1, 8));  // 16 steps, 2 passes, no tiles
  auto error = [&](const char* text) {
    const GoTo g = parse_go_to(on, text);
    CHECK_FALSE(g.ok());
    CHECK(g.error.find('\n') == std::string::npos);
    return g.error;
  };
  CHECK(error("0") == "no step 0: steps run 1..16");
  CHECK(error("17") == "no step 17: steps run 1..16");
  CHECK(error("99999999999999") == "no step 2147483647: steps run 1..16");
  CHECK(error("pass 5") == "no pass 5: this recording has 2");
  CHECK(error("tile (1, 2)") == "this recording has no tiles: go to a step, a pass or a row");
  CHECK(error("row 2") == "no row 2: rows run 1..1");
  CHECK(error("banana").find("\"banana\" is not a step, pass, row or tile") == 0);
  CHECK(error("").find("type a step") == 0);
  CHECK(error("step two").find("is not a step number") != std::string::npos);
  CHECK(error("-3").find("is not a step, pass, row or tile") != std::string::npos);
  CHECK(error("pass sideways").find("no pass \"sideways\": this recording has 2 (") == 0);

  Scenario s;
  s.algorithm = Algorithm::attn_tiled, s.n = 12, s.d = 2, s.block_rows = 3, s.block_cols = 4, s.seed = 2;
  const Recording fa1 = record(s);
  CHECK(parse_go_to(fa1, "tile (9, 1)").error == "tile (9, 1) is not in this recording: i runs 1..4");
  CHECK(parse_go_to(fa1, "(1, 4)").error == "tile (1, 4) is not in this recording: j runs 1..3");
  CHECK(parse_go_to(fa1, "tile (1)").error.find("is not a tile") != std::string::npos);
  CHECK(parse_go_to(fa1, "row 3").error == "the steps of this recording are not by row: go to a step or a pass");
}
