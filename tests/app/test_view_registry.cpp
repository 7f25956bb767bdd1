// The view registry (app/ui/views/view_registry.h): every view the algorithm table names is
// registered and finds in that algorithm's recording what it draws, whatever the family; and
// a view says so only where it can.
#include "app/ui/views/view_registry.h"

#include "core/algorithms.h"
#include "core/engine.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace flashstep;
using namespace flashstep::ui;

TEST_CASE("view registry: every row's view is registered and draws that row's recording") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    CAPTURE(std::string(a.id));
    const ViewEntry* v = find_view(a.view);
    REQUIRE(v != nullptr);
    CHECK(v->kind == a.view);
    REQUIRE(static_cast<bool>(v->draw));
    REQUIRE(static_cast<bool>(v->draws));
    Scenario s;
    s.algorithm = a.algorithm;
    const Recording rec = record(s);
    REQUIRE(rec.step_count() > 0);
    CHECK(v->draws(rec));
  }
}

TEST_CASE("view registry: one entry per kind, and no view claims a recording without its buffers") {
  std::set<ViewKind> kinds;
  for (const ViewEntry& v : view_registry()) {
    CHECK(kinds.insert(v.kind).second);
    CHECK_FALSE(v.draws(Recording{}));  // nothing recorded: nothing to draw
  }
  // The vector and chunked views draw a row x, the matrix view Q: each refuses the other's.
  Scenario soft, attn;
  soft.algorithm = Algorithm::chunked;
  attn.algorithm = Algorithm::attn_tiled;
  const Recording rs = record(soft), ra = record(attn);
  REQUIRE(find_view(ViewKind::matrix));
  CHECK_FALSE(find_view(ViewKind::matrix)->draws(rs));
  for (ViewKind k : {ViewKind::vector, ViewKind::chunked}) {
    REQUIRE(find_view(k));
    CHECK(find_view(k)->draws(rs));
    CHECK_FALSE(find_view(k)->draws(ra));
  }
}
