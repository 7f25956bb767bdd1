// The Recording and its Cursor: seeking in any direction gives what replaying the deltas gives,
// the step count is known in advance, the steps describe themselves consistently, and the same
// scenario records the same bits every time.
#include "core/algorithms.h"
#include "core/engine.h"
#include "tests/core/support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace flashstep;

namespace {

Scenario softmax_case(Algorithm a, int rows, int n, int chunks = 3) {
  Scenario s;
  s.algorithm = a;
  s.rows = rows;
  s.n = n;
  s.chunks = std::min(chunks, n);
  s.seed = 5;
  return s;
}

Scenario attention_case(Algorithm a, int N, int d, int Br, int Bc, bool causal, int M = 0) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.block_rows = Br;
  s.block_cols = Bc;
  s.sram = M;
  s.causal = causal;
  s.seed = 6;
  return s;
}

// One small recording of every algorithm; the attention ones with and without the mask, with
// block sizes that do not divide N.
std::vector<Scenario> small_cases() {
  std::vector<Scenario> out;
  for (Algorithm a : kAllAlgorithms) {
    if (takes(a, kInputX)) {
      out.push_back(softmax_case(a, 2, 9));
      continue;
    }
    for (bool causal : {false, true}) out.push_back(attention_case(a, 11, 3, 3, 4, causal));
  }
  return out;
}

std::string describe(const Scenario& s) {
  return std::string(algorithm_id(s.algorithm)) + (s.causal ? " causal" : "");
}

bool same_state(const State& a, const State& b) {
  if (a.values.size() != b.values.size() || a.defined != b.defined) return false;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!support::same_vector(a.values[i], b.values[i])) return false;
  return true;
}

// Reaches every step forward, backward and by random jumps; each time the Cursor must hold
// exactly what replay() computes from the initial state.
void check_seeks(const Recording& rec, std::uint64_t seed, int jumps) {
  const int S = rec.step_count();
  REQUIRE(S > 0);
  Cursor cur(rec);
  CHECK(cur.position() == -1);
  CHECK(same_state(cur.state(), rec.initial));
  int bad_forward = 0, bad_backward = 0, bad_jumps = 0;
  for (int k = 0; k < S; ++k) {
    cur.seek(k);
    if (cur.position() != k || !same_state(cur.state(), replay(rec, k))) ++bad_forward;
  }
  for (int k = S - 1; k >= -1; --k) {
    cur.seek(k);
    if (cur.position() != k || !same_state(cur.state(), replay(rec, k))) ++bad_backward;
  }
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> pick(-1, S - 1);
  for (int t = 0; t < jumps; ++t) {
    const int k = pick(gen);
    cur.seek(k);
    if (cur.position() != k || !same_state(cur.state(), replay(rec, k))) ++bad_jumps;
  }
  CHECK(bad_forward == 0);
  CHECK(bad_backward == 0);
  CHECK(bad_jumps == 0);
  // Out of range: clamped to the ends.
  cur.seek(S + 10);
  CHECK(cur.position() == S - 1);
  CHECK(same_state(cur.state(), replay(rec, S - 1)));
  cur.seek(-7);
  CHECK(cur.position() == -1);
  CHECK(same_state(cur.state(), rec.initial));
}

bool region_inside(const Recording& rec, const Region& g) {
  if (g.buffer < 0 || g.buffer >= static_cast<int>(rec.buffers.size())) return false;
  const BufferInfo& b = rec.buffers[g.buffer];
  return 0 <= g.r0 && g.r0 < g.r1 && g.r1 <= b.rows && 0 <= g.c0 && g.c0 < g.c1 && g.c1 <= b.cols;
}

}  // namespace

TEST_CASE("seek(k) equals replay(rec, k) forward, backward and by random jumps, for every algorithm") {
  for (const Scenario& s : small_cases()) {
    CAPTURE(describe(s));
    check_seeks(record(s), 101, 200);
  }
}

TEST_CASE("seek(k) equals replay(rec, k) across keyframes") {
  // Long enough that the recorder adds keyframes, so far seeks restart from one of them.
  const Scenario cases[] = {attention_case(Algorithm::attn_online, 40, 8, 0, 0, false),
                            attention_case(Algorithm::attn_tiled, 32, 16, 4, 1, true),
                            softmax_case(Algorithm::online, 8, 256),
                            // Buffers declared after the first keyframes (the backward's, after
                            // its forward's steps): a keyframe holds them too.
                            attention_case(Algorithm::attn_flash_backward, 29, 8, 6, 4, true)};
  for (const Scenario& s : cases) {
    CAPTURE(describe(s));
    const Recording rec = record(s);
    REQUIRE_FALSE(rec.keyframes.empty());
    REQUIRE(rec.keyframe_steps.size() == rec.keyframes.size());
    CHECK(std::is_sorted(rec.keyframe_steps.begin(), rec.keyframe_steps.end()));
    for (std::size_t f = 0; f < rec.keyframes.size(); ++f)
      CHECK(same_state(rec.keyframes[f], replay(rec, rec.keyframe_steps[f])));
    check_seeks(rec, 202, 300);
  }
}

namespace {

// The contents after the first `end` deltas, replayed plainly from the initial state.
State replay_deltas(const Recording& rec, std::uint32_t end) {
  State s = rec.initial;
  for (std::uint32_t i = 0; i < end; ++i) {
    const Delta& d = rec.deltas[i];
    s.values[d.buffer][d.index] = d.value;
    s.defined[d.buffer][d.index] = d.defined;
  }
  return s;
}

bool line_says(Algorithm a, int first, int last, const std::string& what) {
  const auto& lines = pseudocode(a);
  for (int i = first; i <= last; ++i)
    if (lines[static_cast<std::size_t>(i - 1)].find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a tile step's parts: S, then P~, then the merge, each under its own pseudocode line") {
  for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
    for (bool causal : {false, true}) {
      const Scenario s = attention_case(a, 11, 3, 3, 4, causal);
      CAPTURE(describe(s));
      const Recording rec = record(s);
      const int bS = rec.find_buffer("S"), bP = rec.find_buffer("P");
      const int bO = rec.find_buffer(a == Algorithm::attn_tiled ? "O" : "O_acc");
      REQUIRE(bS >= 0);
      REQUIRE(bP >= 0);
      REQUIRE(bO >= 0);
      int tiles = 0;
      Cursor cur(rec);
      std::mt19937_64 gen(7);
      for (int k = 0; k < rec.step_count(); ++k) {
        const Step& st = rec.steps[k];
        if (st.tile_j < 0) {
          CHECK(st.parts.empty());
          continue;
        }
        ++tiles;
        CAPTURE(k);
        REQUIRE(st.parts.size() == 3);
        CHECK(line_says(a, st.parts[0].line, st.parts[0].line_end, "S_{ij} = Q_{i} K_{j}ᵀ"));
        CHECK(line_says(a, st.parts[1].line, st.parts[1].line_end, "\\~P_{ij} = exp"));
        CHECK(line_says(a, st.parts[2].line, st.parts[2].line_end, "O_{i}"));
        const State before = replay(rec, k - 1), after = replay(rec, k);
        for (int p = 0; p < 3; ++p) {
          CAPTURE(p);
          // From anywhere: the cursor lands on exactly the prefix of the step's writes.
          cur.seek(std::uniform_int_distribution<int>(-1, rec.step_count() - 1)(gen),
                   std::uniform_int_distribution<int>(-1, 2)(gen));
          cur.seek(k, p);
          CHECK(cur.position() == k);
          CHECK(cur.part() == (p == 2 ? -1 : p));
          const State& at = cur.state();
          CHECK(same_state(at, replay_deltas(rec, st.parts[static_cast<std::size_t>(p)].delta_end)));
          // S is there from the first part, P~ from the second, the merged O from the third.
          CHECK(at.values[bS] == after.values[bS]);
          CHECK(at.defined[bS] == after.defined[bS]);
          CHECK(at.defined[bP] == (p >= 1 ? after.defined[bP] : before.defined[bP]));
          CHECK(at.values[bO] == (p >= 2 ? after.values[bO] : before.values[bO]));
          // What the step writes counts as written once it is: O only with the last part, but
          // FA-2's first tile of a Q block starts by setting O_acc, m, l to 0, 0, −∞ (line 4).
          const Step as_of = step_as_of_part(rec, k, p);
          bool writes_S = false, writes_O = false;
          for (const Region& g : as_of.writes) {
            writes_S |= g.buffer == bS;
            writes_O |= g.buffer == bO;
          }
          CHECK(writes_S);
          CHECK(writes_O == (p == 2 || (a == Algorithm::attn_tiled_v2 && st.tile_j == 0)));
        }
      }
      CHECK(tiles > 3);
      // seek(k) after a part shows the whole step again.
      cur.seek(0, 0);
      cur.seek(0);
      CHECK(cur.part() == -1);
      CHECK(same_state(cur.state(), replay(rec, 0)));
    }
  }
}

TEST_CASE("seek(-1) is the state before the first step") {
  SUBCASE("online softmax: x is the input, m = -inf and l = 0, y not yet written") {
    Scenario s = softmax_case(Algorithm::online, 2, 5);
    const Resolved r = resolve(s);
    const Recording rec = record(r);
    Cursor cur(rec);
    cur.seek(3);
    cur.seek(-1);
    const int bx = rec.find_buffer("x"), by = rec.find_buffer("y");
    const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l");
    for (int row = 0; row < 2; ++row) {
      CHECK(cur.defined(bm, row, 0));
      CHECK(cur.value(bm, row, 0) == -std::numeric_limits<double>::infinity());
      CHECK(cur.defined(bl, row, 0));
      CHECK(cur.value(bl, row, 0) == 0.0);
      for (int i = 0; i < 5; ++i) {
        CHECK(cur.defined(bx, row, i));
        CHECK(cur.value(bx, row, i) == r.x(row, i));
        CHECK_FALSE(cur.defined(by, row, i));
      }
    }
  }
  SUBCASE("FlashAttention-1: O = 0, l = 0, m = -inf in HBM, no S or P yet") {
    const Recording rec = record(attention_case(Algorithm::attn_tiled, 7, 2, 2, 3, false));
    Cursor cur(rec);
    cur.seek(rec.step_count() - 1);
    cur.seek(-1);
    const int bO = rec.find_buffer("O"), bS = rec.find_buffer("S"), bP = rec.find_buffer("P");
    const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l");
    for (int i = 0; i < 7; ++i) {
      CHECK(cur.value(bm, i, 0) == -std::numeric_limits<double>::infinity());
      CHECK(cur.value(bl, i, 0) == 0.0);
      for (int c = 0; c < 2; ++c) {
        CHECK(cur.defined(bO, i, c));
        CHECK(cur.value(bO, i, c) == 0.0);
      }
      for (int j = 0; j < 7; ++j) {
        CHECK_FALSE(cur.defined(bS, i, j));
        CHECK_FALSE(cur.defined(bP, i, j));
      }
    }
  }
  SUBCASE("safe softmax: y is written only in pass 3") {
    const Recording rec = record(softmax_case(Algorithm::safe, 1, 4));
    Cursor cur(rec);
    const int by = rec.find_buffer("y");
    for (int k = 0; k < rec.step_count(); ++k) {
      cur.seek(k);
      const Step& st = rec.steps[k];
      // Steps of pass 3 write y_1, y_2, ... in order.
      const int written = st.pass < 3 ? 0 : k - 2 * 4 + 1;
      for (int i = 0; i < 4; ++i) CHECK(cur.defined(by, 0, i) == (i < written));
    }
  }
}

TEST_CASE("estimate_steps(resolve(s)) is the exact step count, with and without the mask") {
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(algorithm_id(a));
    std::vector<Scenario> cases;
    if (takes(a, kInputX)) {
      for (int rows : {1, 3})
        for (int n : {1, 5, 16})
          for (int K : {1, 2, 3, 5}) cases.push_back(softmax_case(a, rows, n, K));
    } else {
      struct Shape {
        int N, d, Br, Bc, M;
      };
      for (const Shape& sh : {Shape{1, 1, 0, 0, 0}, Shape{11, 3, 3, 4, 0}, Shape{13, 2, 5, 2, 0},
                              Shape{17, 4, 16, 16, 0}, Shape{20, 4, 4, 4, 0}, Shape{23, 4, 0, 0, 64},
                              Shape{29, 2, 1, 29, 0}})
        for (bool causal : {false, true})
          cases.push_back(attention_case(a, sh.N, sh.d, sh.Br, sh.Bc, causal, sh.M));
    }
    for (const Scenario& s : cases) {
      CAPTURE(describe(s));
      CAPTURE(s.n);
      CAPTURE(s.rows);
      CAPTURE(s.chunks);
      const Resolved r = resolve(s);
      CHECK(estimate_steps(r) == record(r).step_count());
    }
  }
}

TEST_CASE("after the last step, the y or O buffer holds the output") {
  for (const Scenario& s : small_cases()) {
    CAPTURE(describe(s));
    const Recording rec = record(s);
    const int b = rec.find_buffer(takes_qkv(s.algorithm) ? "O" : "y");
    REQUIRE(b >= 0);
    REQUIRE(rec.buffers[b].rows == rec.output().rows());
    REQUIRE(rec.buffers[b].cols == rec.output().cols());
    Cursor cur(rec);
    cur.seek(rec.step_count() - 1);
    int mismatches = 0;
    for (int r = 0; r < rec.output().rows(); ++r)
      for (int c = 0; c < rec.output().cols(); ++c)
        if (!cur.defined(b, r, c) || !support::same(cur.value(b, r, c), rec.output()(r, c))) ++mismatches;
    CHECK(mismatches == 0);
  }
}

TEST_CASE("every step names a pass, a pseudocode line and regions inside their buffers") {
  for (const Scenario& s : small_cases()) {
    CAPTURE(describe(s));
    const Recording rec = record(s);
    const int lines = static_cast<int>(pseudocode(s.algorithm).size());
    REQUIRE(rec.pass_count() > 0);
    REQUIRE(lines > 0);
    std::uint32_t previous_end = 0;
    for (int k = 0; k < rec.step_count(); ++k) {
      const Step& st = rec.steps[k];
      CAPTURE(k);
      CAPTURE(st.label);
      CHECK(st.pass >= 1);
      CHECK(st.pass <= rec.pass_count());
      CHECK(st.line >= 1);
      CHECK(st.line <= lines);
      CHECK(st.line_end >= st.line);
      CHECK(st.line_end <= lines);
      CHECK_FALSE(st.label.empty());
      CHECK_FALSE(st.text.empty());
      CHECK(st.row >= -1);
      CHECK(st.row < rec.rows);
      CHECK(st.tile_i >= -1);
      CHECK(st.tile_i < std::max(rec.Tr, 0));
      CHECK(st.tile_j >= -1);
      CHECK(st.tile_j < std::max(rec.Tc, 0));
      CHECK_FALSE(st.writes.empty());
      for (const Region& g : st.reads) CHECK(region_inside(rec, g));
      for (const Region& g : st.writes) CHECK(region_inside(rec, g));
      CHECK(st.delta_end >= previous_end);
      // Parts: two or more, each inside the step's lines and after the one before, their
      // writes a growing prefix of the step's, the last ending with the step.
      if (!st.parts.empty()) {
        CHECK(st.parts.size() >= 2);
        int line_before = st.line - 1;
        std::uint32_t end_before = previous_end;
        for (const StepPart& p : st.parts) {
          CHECK(p.line > line_before);
          CHECK(p.line_end >= p.line);
          CHECK(p.line_end <= st.line_end);
          CHECK(p.delta_end >= end_before);
          CHECK_FALSE(p.text.empty());
          line_before = p.line_end;
          end_before = p.delta_end;
        }
        CHECK(st.parts.back().delta_end == st.delta_end);
      }
      previous_end = st.delta_end;
    }
    // No write is left outside a step, where seeking could never reach it.
    CHECK(rec.steps.back().delta_end == rec.deltas.size());
    for (const Delta& dl : rec.deltas) {
      REQUIRE(dl.buffer < rec.buffers.size());
      const BufferInfo& b = rec.buffers[dl.buffer];
      CHECK(dl.index < static_cast<std::uint32_t>(b.rows * b.cols));
    }
  }
}

TEST_CASE("the same scenario and seed record bit-identical runs") {
  std::vector<Scenario> cases = small_cases();
  cases.push_back(softmax_case(Algorithm::chunked, 3, 17, 4));
  for (const Scenario& s : cases) {
    CAPTURE(describe(s));
    const Recording a = record(s), b = record(s);
    CHECK(support::same_matrix(a.output(), b.output()));
    CHECK(support::same_vector(a.m(), b.m()));
    CHECK(support::same_vector(a.l(), b.l()));
    CHECK(support::same_vector(a.lse(), b.lse()));
    CHECK(a.io == b.io);
    REQUIRE(a.step_count() == b.step_count());
    REQUIRE(a.deltas.size() == b.deltas.size());
    int differing = 0;
    for (std::size_t i = 0; i < a.deltas.size(); ++i) {
      const Delta &x = a.deltas[i], &y = b.deltas[i];
      if (x.buffer != y.buffer || x.index != y.index || !support::same(x.value, y.value) ||
          !support::same(x.old, y.old) || x.defined != y.defined || x.old_defined != y.old_defined)
        ++differing;
    }
    CHECK(differing == 0);
    for (int k = 0; k < a.step_count(); ++k) {
      const Step &x = a.steps[k], &y = b.steps[k];
      if (x.text != y.text || x.label != y.label || x.io != y.io || x.delta_end != y.delta_end) ++differing;
    }
    CHECK(differing == 0);
    CHECK(same_state(a.initial, b.initial));
    // ... and the seed does matter.
    Scenario other = s;
    other.seed = s.seed + 1;
    CHECK_FALSE(support::same_matrix(a.output(), record(other).output()));
  }
}
