// The algorithm table (core/algorithms.h) is tied to the enum: row k describes algorithm k, and
// every row is complete, so an algorithm cannot be half-added.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/timed_run.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace flashstep;

TEST_CASE("the algorithm table has one complete row per Algorithm, in the enum's order") {
  const auto& table = algorithm_table();
  REQUIRE(table.size() == std::size(kAllAlgorithms));
  std::set<std::string> ids;
  for (std::size_t k = 0; k < table.size(); ++k) {
    const AlgorithmInfo& a = table[k];
    CAPTURE(std::string(a.id));
    CHECK(a.algorithm == kAllAlgorithms[k]);
    CHECK(&info(a.algorithm) == &a);
    CHECK(ids.insert(std::string(a.id)).second);  // ids are unique
    CHECK(parse_algorithm(a.id) == a.algorithm);
    CHECK(!a.title.empty());
    CHECK(!a.short_name.empty());
    CHECK(static_cast<bool>(a.record));
    CHECK(static_cast<bool>(a.io));
    CHECK(static_cast<bool>(a.size));
    CHECK(!a.pseudocode.empty());
    // The Compare tab's pair runs on this algorithm's input: same family.
    CHECK(info(a.compare_a).family == a.family);
    CHECK(info(a.compare_b).family == a.family);
    // Its view (a.view) is registered and draws its recording: tests/app/test_view_registry.cpp.
    if (a.takes_blocks) CHECK(takes_qkv(a.algorithm));
    if (a.global_max) CHECK(a.has_max);
    // Its traits: what it takes, what Compare pairs it with, what it holds.
    CHECK(!a.inputs.empty());
    CHECK(!a.group.empty());
    CHECK(same_group(a.compare_a, a.algorithm));
    CHECK(same_group(a.compare_b, a.algorithm));
    if (a.takes_blocks) CHECK(a.tile.tiled());
    if (!a.square.empty()) CHECK(materialized_of(a.algorithm) == a.algorithm);
    CHECK(!a.passes.empty());
    // The tests select the rows they apply to by these traits (tests/rows.h): a row that none
    // of their selections takes would be tested by nothing.
    CHECK((takes(a.algorithm, kInputX) || takes_qkv(a.algorithm)));
  }
}

namespace {

Scenario sample(const AlgorithmInfo& a) {
  Scenario s;
  s.algorithm = a.algorithm;
  if (takes_qkv(a.algorithm)) {
    s.n = 9, s.d = 4, s.block_rows = 4, s.block_cols = 3;
  } else {
    s.x = {{3, 2, 5, 1, 4}, {0, 1, -1, 2, 2}};
    s.chunks = 2;
  }
  return s;
}

}  // namespace

TEST_CASE("every row names its passes, none empty, and its recording's steps run through exactly those") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    const Resolved r = resolve(sample(a));
    const std::vector<std::string> names = pass_names(r);
    REQUIRE(!names.empty());
    for (const std::string& n : names) CHECK(!n.empty());
    const Recording rec = record(r);
    CHECK(rec.pass_names == names);
    std::vector<bool> used(names.size(), false);
    for (const Step& st : rec.steps) {
      REQUIRE(st.pass >= 1);
      REQUIRE(st.pass <= static_cast<int>(names.size()));
      used[static_cast<std::size_t>(st.pass - 1)] = true;
    }
    for (std::size_t k = 0; k < used.size(); ++k) CHECK_MESSAGE(used[k], "no step in pass " << names[k]);
  }
}

TEST_CASE("the SRAM rule is the paper's Bc = ⌈M/4d⌉, Br = min(Bc, d), for every caller") {
  for (long long d : {1LL, 3LL, 4LL, 64LL, 1000LL})
    for (long long M : {1LL, 4LL, 63LL, 64LL, 65LL, 1000LL, 16384LL, 2147483647LL}) {
      CAPTURE(d);
      CAPTURE(M);
      long long bc = 1;  // the smallest Bc with Bc · 4d ≥ M, counted up plainly where it is small
      if (M <= 1000000) {
        while (bc * 4 * d < M) ++bc;
      } else {
        bc = M / (4 * d) + (M % (4 * d) != 0);
      }
      const SramBlocks b = sram_blocks(M, d);
      CHECK(b.Bc == bc);
      CHECK(b.Br == std::min(bc, d));
    }
  // resolve() derives its blocks from it, capped at N.
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 500, s.d = 8, s.sram = 1000;
  const Resolved r = resolve(s);
  CHECK(r.Bc == 32);  // ⌈1000 / 32⌉
  CHECK(r.Br == 8);
}

TEST_CASE("a tile step's budget is the row's tile: the paper's B × d tiles, and the score tile on top") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    if (!a.takes_blocks) continue;
    const TileBudget t = tile_budget(a.tile, 4, 3, 5, 64);
    CHECK(t.kv == a.tile.key_tiles * 3LL * 5);
    CHECK(t.qo == a.tile.query_tiles * 4LL * 5);
    CHECK(t.s == a.tile.score_tiles * 4LL * 3);
    CHECK(t.paper == t.kv + t.qo);
    CHECK(t.with_s == t.paper + t.s);
  }
}

TEST_CASE("the rows that hold N × N matrices are refused by their size, and name the rows that hold none") {
  std::vector<Algorithm> holders;
  for (const AlgorithmInfo& a : algorithm_table())
    if (!a.square.empty()) holders.push_back(a.algorithm);
  REQUIRE(!holders.empty());
  for (Algorithm a : holders) {
    CAPTURE(std::string(algorithm_id(a)));
    CHECK(square_bytes(a, 1000, 3, 4.0) == static_cast<double>(info(a).square.size()) * 3 * 1000.0 * 1000.0 * 4);
    for (Algorithm b : group_of(a)) CHECK(materialized_of(b) == a);
  }
  CHECK(square_names(Algorithm::attn_naive) == "S and P");
  CHECK(square_names(Algorithm::attn_tiled).empty());
}

TEST_CASE("every step a recorded engine makes points at a line of its row's pseudocode") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    Scenario s;
    s.algorithm = a.algorithm;
    if (takes_qkv(a.algorithm)) {
      s.n = 9, s.d = 4, s.block_rows = 4, s.block_cols = 4;
    } else {
      s.x = {{3, 2, 5, 1, 4}};
      s.chunks = 2;
    }
    const Recording rec = record(s);
    REQUIRE(rec.step_count() > 0);
    const int lines = static_cast<int>(a.pseudocode.size());
    for (const Step& st : rec.steps) {
      CHECK(st.line >= 1);
      CHECK(st.line <= lines);
      CHECK(std::max(st.line, st.line_end) <= lines);
    }
  }
}

TEST_CASE("the table's fast flag is what --steps none runs") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    Scenario s;
    s.algorithm = a.algorithm;
    if (takes(a.algorithm, kInputX)) s.x = {{3, 2, 5, 1}};
    CHECK(has_fast_kernel(resolve(s)) == (a.fast != nullptr));
  }
}
