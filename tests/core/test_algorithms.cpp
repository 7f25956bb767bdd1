// The algorithm table (core/algorithms.h) is tied to the enum: row k describes algorithm k, and
// every row is complete, so an algorithm cannot be half-added.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/timed_run.h"

#include <doctest/doctest.h>

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
    CHECK(is_attention(a.algorithm) == (a.family == Family::attention));
    // Its view (a.view) is registered and draws its recording: tests/app/test_view_registry.cpp.
    if (a.takes_blocks) CHECK(a.family == Family::attention);
    if (a.global_max) CHECK(a.has_max);
  }
}

TEST_CASE("every step a recorded engine makes points at a line of its row's pseudocode") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    Scenario s;
    s.algorithm = a.algorithm;
    if (a.family == Family::attention) {
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
    if (a.family == Family::softmax) s.x = {{3, 2, 5, 1}};
    CHECK(has_fast_kernel(resolve(s)) == (a.fast != nullptr));
  }
}
