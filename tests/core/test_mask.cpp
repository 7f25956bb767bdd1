// The Mask (core/mask.h) against plain loops written here, and the initial state
// (core/initial_state.h) against the pseudocode's initialisation lines.
#include "core/algorithms.h"
#include "core/initial_state.h"
#include "core/mask.h"
#include "core/text.h"

#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <string>

using namespace flashstep;

namespace {

// What each mask means, written plainly: top-left causal sees keys j ≤ i, none sees every key.
bool visible_by_definition(Mask::Kind kind, int i, int j) {
  switch (kind) {
    case Mask::Kind::none: return true;
    case Mask::Kind::causal: return j <= i;
  }
  return false;
}

const Mask::Kind kKinds[] = {Mask::Kind::none, Mask::Kind::causal};

}  // namespace

TEST_CASE("a mask's cells and key runs are what the mask means") {
  for (Mask::Kind kind : kKinds)
    for (int N : {1, 2, 7, 16, 33}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(N);
      const Mask mask(kind, N, N);
      for (int i = 0; i < N; ++i) {
        int first = -1, last = -1, count = 0;
        for (int j = 0; j < N; ++j) {
          CHECK(mask.visible(i, j) == visible_by_definition(kind, i, j));
          if (visible_by_definition(kind, i, j)) {
            if (first < 0) first = j;
            last = j;
            ++count;
          }
        }
        // The visible keys are one run, and keys(i) is exactly that run.
        const Mask::KeyRange keys = mask.keys(i);
        CHECK(keys.size() == count);
        if (count > 0) {
          CHECK(last - first + 1 == count);
          CHECK(keys.begin == first);
          CHECK(keys.end == last + 1);
        }
      }
    }
}

TEST_CASE("a tile is empty iff none of its cells is visible, full iff all are") {
  long long seen[3] = {0, 0, 0};
  for (Mask::Kind kind : kKinds)
    for (int N : {1, 5, 16, 37})
      for (int Br : {1, 2, 3, 8, 16})
        for (int Bc : {1, 3, 4, 16, 40}) {
          const Mask mask(kind, N, N);
          for (int r0 = 0; r0 < N; r0 += Br)
            for (int c0 = 0; c0 < N; c0 += Bc) {
              const int nr = std::min(Br, N - r0), nc = std::min(Bc, N - c0);
              int visible = 0;
              for (int i = r0; i < r0 + nr; ++i)
                for (int j = c0; j < c0 + nc; ++j) visible += visible_by_definition(kind, i, j) ? 1 : 0;
              const TileKind want = visible == 0 ? TileKind::empty : visible == nr * nc ? TileKind::full : TileKind::partial;
              const TileKind got = mask.tile(r0, nr, c0, nc);
              if (got != want) {
                CAPTURE(static_cast<int>(kind));
                CAPTURE(N);
                CAPTURE(r0);
                CAPTURE(nr);
                CAPTURE(c0);
                CAPTURE(nc);
                CHECK(static_cast<int>(got) == static_cast<int>(want));
              }
              ++seen[static_cast<int>(want)];
            }
        }
  // Every kind of tile was met.
  CHECK(seen[0] > 0);
  CHECK(seen[1] > 0);
  CHECK(seen[2] > 0);
}

TEST_CASE("a scenario's causal flag is the top-left causal mask") {
  CHECK(Mask::causal_if(true, 4, 4).kind() == Mask::Kind::causal);
  CHECK(Mask::causal_if(false, 4, 4).kind() == Mask::Kind::none);
  CHECK(Mask::causal_if(true, 4, 4).name() == "causal");
  CHECK(Mask::causal_if(false, 4, 4).name() == "none");
}

TEST_CASE("a mask written into a scenario is the mask the scenario asks for, whatever it asked before") {
  for (Mask::Kind kind : kKinds)
    for (bool before : {false, true}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(before);
      Resolved r;
      r.n = 7;
      r.scenario.causal = before;
      Mask(kind, 7, 7).ask_in(r.scenario);
      const Mask back = Mask::of(r);
      CHECK(back.kind() == kind);
      for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) CHECK(back.visible(i, j) == visible_by_definition(kind, i, j));
    }
}

TEST_CASE("the running state starts at m = −∞, l = 0, O = 0, and the pseudocode says so") {
  const InitialState init = initial_state();
  CHECK(std::isinf(init.m));
  CHECK(init.m < 0);
  CHECK(init.l == 0.0);
  CHECK(init.o == 0.0);
  CHECK(std::isinf(static_cast<float>(init.m_as<Eigen::half>())));
  // Every initialisation in the pseudocode of every row: "m_{0} ← −∞", "l ← 0",
  // "O_{i}^{(0)} ← 0", "m = (−∞)_{N}", "l_{i}^{(0)} = (0)_{Br}" and the like.
  const std::regex assign(R"((^|[^A-Za-z\\~])(m|l|O)(_\{[^}]*\})?(\^\{\(0\)\})?\s*(←|=)\s*\(?(−∞|0)\)?(_\{|,|\s|$))");
  int m_lines = 0, l_lines = 0, o_lines = 0;
  for (const AlgorithmInfo& row : algorithm_table())
    for (const std::string& line : row.pseudocode)
      for (std::sregex_iterator it(line.begin(), line.end(), assign), end; it != end; ++it) {
        const std::string name = (*it)[2], value = (*it)[6];
        CAPTURE(row.id);
        CAPTURE(line);
        const double want = name == "m" ? init.m : name == "l" ? init.l : init.o;
        CHECK(value == num(want));
        (name == "m" ? m_lines : name == "l" ? l_lines : o_lines) += 1;
      }
  // The rows that keep a running (m, l) initialise it in their pseudocode.
  CHECK(m_lines >= 7);
  CHECK(l_lines >= 8);
  CHECK(o_lines >= 3);
}
