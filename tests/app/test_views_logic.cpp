// The views' pure logic (app/ui/views/view_logic.h), on real recordings: what a view highlights,
// the old → new values it shows, the reasons it gives for inf and nan, its layout and the IO
// totals it compares.
#include "app/ui/views/close_up.h"
#include "app/ui/views/matrix_layout.h"
#include "app/ui/views/view_logic.h"
#include "tests/rows.h"
#include "app/ui/widgets.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/io_model.h"
#include "core/lessons.h"
#include "core/text.h"
#include "tests/notation.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <cmath>
#include <limits>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

Recording run(Algorithm a, std::vector<double> x, Precision p = Precision::fp32) {
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.x = {std::move(x)};
  return record(s);
}

Recording run_attention(Algorithm a, int N, int d, int sram, bool causal = false) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.sram = sram;
  s.causal = causal;
  s.seed = 7;
  return record(s);
}

bool overlap(const Rect& a, const Rect& b) {
  return a.shown && b.shown && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

}  // namespace

TEST_CASE("value ranges ignore inf and nan and map to [0, 1]") {
  ValueRange r;
  CHECK(r.t(3.0) == 0.5f);
  r.add(std::numeric_limits<double>::infinity());
  r.add(std::nan(""));
  CHECK(r.empty);
  r.add(-2);
  r.add(6);
  CHECK(r.lo == -2);
  CHECK(r.hi == 6);
  CHECK(r.t(2) == doctest::Approx(0.5));
  CHECK(r.t(100) == 1.0f);
  CHECK(r.t(-100) == 0.0f);
}

TEST_CASE("the colour range of a buffer covers every value it ever holds") {
  const Recording rec = run_attention(Algorithm::attn_naive, 8, 4, 0);
  const ValueRange p = buffer_range(rec, rec.find_buffer("P"));
  CHECK_FALSE(p.empty);
  CHECK(p.lo >= 0.0);
  CHECK(p.hi <= 1.0);
  // y of [3, 2, 5, 1]: the largest output is 0.83095.
  const Recording soft = run(Algorithm::online, {3, 2, 5, 1});
  CHECK(buffer_range(soft, soft.find_buffer("y")).hi == doctest::Approx(0.83095).epsilon(1e-4));
}

TEST_CASE("a recording's fingerprint changes with its contents, not only its shape") {
  const Recording a = run_attention(Algorithm::attn_tiled, 12, 4, 64);
  const Recording same = run_attention(Algorithm::attn_tiled, 12, 4, 64);
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 12;
  s.d = 4;
  s.sram = 64;
  s.seed = 8;  // same shape and counters, other numbers
  const Recording other = record(s);
  CHECK(a.io == other.io);
  CHECK(recording_fingerprint(a) == recording_fingerprint(same));
  CHECK(recording_fingerprint(a) != recording_fingerprint(other));
}

TEST_CASE("numbers short enough for a cell") {
  CHECK(compact_number(0.523) == "0.52");
  CHECK(compact_number(-1.5) == "−1.5");
  CHECK(compact_number(12) == "12");
  CHECK(compact_number(12345) == "1.2×10⁴");
  CHECK(compact_number(0.0001) == "1.0×10⁻⁴");
  CHECK(compact_number(0) == "0");
  CHECK(compact_number(std::numeric_limits<double>::infinity()) == "∞");
  CHECK(compact_number(-std::numeric_limits<double>::infinity()) == "−∞");
  CHECK(compact_number(std::nan("")) == "nan");
  CHECK(compact_number(0.52, 1) == ".5");
}

TEST_CASE("the shortest numbers for narrow cells") {
  CHECK(tiny_number(0.0) == "0");
  CHECK(tiny_number(-0.0) == "0");
  CHECK(tiny_number(0.013) == "≈0");
  CHECK(tiny_number(-0.0093) == "≈0");  // not "0": the cell is not zero
  CHECK(tiny_number(0.049) == "≈0");
  CHECK(tiny_number(0.05) == ".1");
  CHECK(tiny_number(0.52) == ".5");
  CHECK(tiny_number(-0.26) == "−.3");
  CHECK(tiny_number(0.97) == "1");
  CHECK(tiny_number(-1.6) == "−2");
  CHECK(tiny_number(12.4) == "12");
  CHECK(tiny_number(std::nan("")) == "nan");
}

TEST_CASE("a close-up's numbers: the most digits that fit each cell and a fraction written one way in all") {
  // Room counted in characters, the minus sign one.
  const auto room = [](std::size_t chars) {
    return [chars](std::size_t, const std::string& t) {
      std::size_t n = 0;
      for (unsigned char ch : t) n += (ch & 0xC0) != 0x80;
      return n <= chars;
    };
  };
  const std::vector<double> v = {0.83, -0.63, 0.13, -0.41, -1.57};
  // Five characters: three digits.
  CHECK(cell_numbers(v, room(5)) == std::vector<std::string>{"0.83", "−0.63", "0.13", "−0.41", "−1.57"});
  // Four: "−0.63" does not fit and "−.63" does, two digits rather than "−0.6"; so ".83"
  // everywhere, not "0.83" beside "−.63".
  CHECK(cell_numbers(v, room(4)) == std::vector<std::string>{".83", "−.63", ".13", "−.41", "−1.6"});
  // Only positive numbers in four: every fraction keeps its zero.
  CHECK(cell_numbers({0.83, 0.13, 1.57}, room(4)) == std::vector<std::string>{"0.83", "0.13", "1.57"});
  // Three: two digits where they fit without the zero (".83"), one where not ("−.6"), and
  // ".6" everywhere, not "0.8" beside "−.6".
  CHECK(cell_numbers(v, room(3)) == std::vector<std::string>{".83", "−.6", ".13", "−.4", "−2"});
  // Three, positive: ".83" (two digits) before "0.8".
  CHECK(cell_numbers({0.83, 1.57}, room(3)) == std::vector<std::string>{".83", "1.6"});
  // Each cell its own room: the narrow one alone decides the way.
  const auto mixed = [&](std::size_t i, const std::string& t) { return room(i == 1 ? 2 : 9)(i, t); };
  CHECK(cell_numbers({0.83, -0.63}, mixed) == std::vector<std::string>{".83", "−.6"});
  // A third digit is not worth the zero: "0.148", then "−0.14" rather than "−.135".
  CHECK(cell_numbers({0.148, -0.135, 0.0288}, room(5)) == std::vector<std::string>{"0.148", "−0.14", "0.029"});
  // Where no digit fits: tiny_number.
  CHECK(cell_numbers({0.013, 12.4}, room(2)) == std::vector<std::string>{"≈0", "12"});
  // In room as wide as DejaVu's glyphs: "−.04" (the minus a third wider than a digit) does not fit
  // where ".007" does. −0.036 reads ≈0, so 0.007, nearer 0, does too, and 0.04, farther, keeps
  // its digits; a zero stays "0".
  const auto glyphs = [](std::size_t, const std::string& t) {
    double w = 0;
    for (std::size_t k = 0; k < t.size();) {
      const auto at = [&](std::string_view g) { return t.compare(k, g.size(), g) == 0; };
      if (at("−") || at("≈")) w += 1.32, k += 3;
      else if (at(".")) w += 0.5, k += 1;
      else w += 1.0, k += (static_cast<unsigned char>(t[k]) & 0x80) ? 2 : 1;
    }
    return w <= 3.6;
  };
  CHECK(cell_numbers({-0.036, 0.007, 0.04, 0.0, 0.5}, glyphs) == std::vector<std::string>{"≈0", "≈0", ".04", "0", ".5"});
  CHECK(cell_numbers({0.007, 0.04}, glyphs) == std::vector<std::string>{".007", ".04"});  // no ≈0: digits
  CHECK(cell_numbers({}, room(3)).empty());
}

TEST_CASE("cells below 2 px are drawn in blocks of at least 2 px") {
  CHECK(decimation(2.3f) == 1);
  CHECK(decimation(2.0f) == 1);
  CHECK(decimation(1.0f) == 2);
  CHECK(decimation(0.7f) == 3);
  CHECK(decimation(0.5f) == 4);
}

TEST_CASE("online softmax: the element read, the registers written, old and new m and l") {
  const Recording rec = run(Algorithm::online, {3, 2, 5, 1});
  const int bx = rec.find_buffer("x"), bm = rec.find_buffer("m"), bl = rec.find_buffer("l");
  // Step 3 (index 2) reads x₃ = 5: m goes 3 → 5 and l is rescaled by exp(3 − 5).
  const Step& st = rec.steps[2];
  CHECK(cell_marks(&st, bx, 0, 2) == kMarkRead);
  CHECK(cell_marks(&st, bx, 0, 1) == 0);
  CHECK(cell_marks(&st, bm, 0, 0) == (kMarkRead | kMarkWrite));
  CHECK(cell_marks(nullptr, bx, 0, 2) == 0);
  Cursor cur(rec);
  cur.seek(2);
  const CellChange m = cell_change(rec, cur.state(), 2, bm, 0, 0);
  CHECK(m.written);
  CHECK(m.changed());
  CHECK(m.old_value == 3);
  CHECK(m.new_value == 5);
  const CellChange l = cell_change(rec, cur.state(), 2, bl, 0, 0);
  const long double l2 = 1.0L + std::exp(-1.0L);
  const auto l_tol = [&](std::vector<double> prefix) {
    return tolerance::softmax_row(flashstep::Algorithm::online, prefix, 1.0, rec.precision, tolerance::Exp::cpu).l;
  };
  CHECK(std::fabs(l.old_value - l2) <= l_tol({3, 2}) * l2);
  CHECK(std::fabs(l.new_value - (l2 * std::exp(-2.0L) + 1.0L)) <= l_tol({3, 2, 5}) * (l2 * std::exp(-2.0L) + 1.0L));
  // Step 2 reads x₂ = 2 < 3: m is written but does not change.
  cur.seek(1);
  const CellChange m1 = cell_change(rec, cur.state(), 1, bm, 0, 0);
  CHECK(m1.written);
  CHECK_FALSE(m1.changed());
  // Step 1: m starts at −∞ (defined), so the first write changes it.
  cur.seek(0);
  const CellChange m0 = cell_change(rec, cur.state(), 0, bm, 0, 0);
  CHECK(m0.old_defined);
  CHECK(std::isinf(m0.old_value));
  CHECK(m0.changed());
  // Before the first step nothing changed.
  cur.seek(-1);
  CHECK_FALSE(cell_change(rec, cur.state(), -1, bm, 0, 0).written);
}

TEST_CASE("inf and nan come with the reason and the numbers") {
  // Lesson 1: fp16, exp(12) = 162755 > 65504.
  const Recording rec = run(Algorithm::naive, {3, 2, 5, 12}, Precision::fp16);
  Cursor cur(rec);
  cur.seek(rec.step_count() - 1);
  const int be = rec.find_buffer("e"), by = rec.find_buffer("y"), bl = rec.find_buffer("l");
  const std::string e = nonfinite_reason(rec, cur.state(), be, 0, 3);
  CHECK(e.find("e^{12} overflows fp16") != std::string::npos);
  CHECK(e.find("65504") != std::string::npos);
  CHECK(nonfinite_reason(rec, cur.state(), by, 0, 3).find("∞ / ∞") != std::string::npos);
  CHECK(nonfinite_reason(rec, cur.state(), bl, 0, 0).find("overflowed") != std::string::npos);
  CHECK(nonfinite_reason(rec, cur.state(), be, 0, 0).empty());  // exp(3) is finite
  CHECK(cell_kind(true, cur.value(by, 0, 3)) == CellKind::nan);
  CHECK(cell_kind(true, cur.value(by, 0, 0)) == CellKind::finite);  // exp(3) / inf = 0

  const Recording causal = run_attention(Algorithm::attn_naive, 6, 4, 0, true);
  Cursor c2(causal);
  c2.seek(causal.step_count() - 1);
  const std::string masked = nonfinite_reason(causal, c2.state(), causal.find_buffer("S"), 1, 4);
  CHECK(masked.find("masked: key 5 comes after query 2") != std::string::npos);
  CHECK(nonfinite_reason(causal, c2.state(), causal.find_buffer("m"), 0, 0).empty());
}

TEST_CASE("log y = −∞ is explained by its own element: x = −∞ with a finite LSE") {
  const double inf = std::numeric_limits<double>::infinity();
  const Recording rec = run(Algorithm::logsumexp, {-inf, 1, 2});
  Cursor cur(rec);
  cur.seek(rec.step_count() - 1);
  const int by = rec.find_buffer("y");
  REQUIRE(by >= 0);
  REQUIRE(cell_kind(true, cur.value(by, 0, 0)) == CellKind::neg_inf);
  // LSE = log(e¹ + e²) ≈ 2.3133: finite, so it is not the reason.
  const double lse = rec.lse()[0];
  CHECK(std::isfinite(lse));
  const std::string why = nonfinite_reason(rec, cur.state(), by, 0, 0);
  CAPTURE(why);
  CHECK(why.find("x₁ = −∞") != std::string::npos);
  CHECK(why.find(num(lse)) != std::string::npos);
  CHECK(why.find("LSE is +inf") == std::string::npos);
  CHECK(why.find("LSE = ∞") == std::string::npos);
  // The finite elements have no reason to give.
  CHECK(nonfinite_reason(rec, cur.state(), by, 0, 1).empty());
}

TEST_CASE("chunks and the merge tree are laid out as the engine splits them") {
  CHECK(chunk_begin(0, 10, 4) == 0);
  CHECK(chunk_begin(1, 10, 4) == 2);
  CHECK(chunk_begin(2, 10, 4) == 5);
  CHECK(chunk_begin(3, 10, 4) == 7);
  CHECK(chunk_begin(4, 10, 4) == 10);
  CHECK(chunk_of(4, 10, 4) == 1);
  CHECK(chunk_of(9, 10, 4) == 3);
  // The first step of `chunked` reads the first element of every chunk.
  Scenario s;
  s.algorithm = Algorithm::chunked;
  s.x = {{3, 2, 5, 1, 7, 0, 4, 6, 9, 8}};
  s.chunks = 4;
  const Recording rec = record(s);
  const int bx = rec.find_buffer("x");
  for (int w = 0; w < 4; ++w) CHECK(cell_marks(&rec.steps[0], bx, 0, chunk_begin(w, 10, 4)) == kMarkRead);

  const auto tree = merge_tree(3);  // workers 0 1 2; (0,1) → 3, 2 carried → 4; (3,4) → 5
  const auto x = merge_tree_x(tree, {0.0f, 10.0f, 20.0f});
  REQUIRE(x.size() == 6);
  CHECK(x[3] == 5.0f);
  CHECK(x[4] == 20.0f);
  CHECK(x[5] == 12.5f);
  CHECK(merge_tree_levels(tree) == 3);
  CHECK(merge_tree_levels(merge_tree(1)) == 1);
}

namespace {

// The forward attention set as the matrix view lays it out from the buffers core declares
// (core/attention_buffers.h): the arrangement of the attention view (rows are queries, aligned across the main band;
// columns of the top band are keys, aligned with S and P):
//
//                 Kᵀ (d×N)      Vᵀ (d×N)
//     Q (N×d)     S (N×N)       P (N×N)      O_acc (N×d)   O (N×d)   m  l  LSE
//
// Vᵀ sits above P because O = P V sums over keys: column j of P weighs v_j, drawn above it.
// Without P, Vᵀ stacks under Kᵀ above S.
struct MatrixLayoutIn {
  int N = 0, d = 0;
  bool q = true, kt = true, s = true, p = true, vt = true, o_acc = false, o = true;
  int stat_cols = 0;     // m, l, LSE, ... beside O
  float stat_min_w = 0;  // px a stat column needs for its numbers (0: one cell)
  float gap = 12;        // px between matrices
  float title_h = 18;    // px above every matrix for its name
  float margin_left = 0, margin_bottom = 0;
  float avail_w = 800, avail_h = 600;
  float cell = 0;  // px per cell; 0 = as large as fits in avail (up to max_cell)
  float max_cell = 48;
};
struct MatrixLayout {
  float cell = 0, stat_w = 0;
  Rect q, kt, s, p, vt, o_acc, o;
  std::vector<Rect> stats;
  float width = 0, height = 0;
};

MatrixLayout layout_matrices(const MatrixLayoutIn& in) {
  // The attention set as declared items (core/narration_attention.cpp declares the same).
  ItemsLayoutIn li;
  li.N = in.N;
  std::vector<Rect*> out;
  MatrixLayout L;
  auto item = [&](bool shown, Place place, int cells, Rect* rect, int host = -1) {
    if (!shown) return;
    li.items.push_back({place, static_cast<int>(li.items.size()), host, cells});
    out.push_back(rect);
  };
  item(in.q, Place::left, in.d, &L.q);
  item(in.kt, Place::above, in.d, &L.kt, in.s ? static_cast<int>(li.items.size()) + 1 : -1);
  item(in.s, Place::centre, in.N, &L.s);
  const int p_index = static_cast<int>(li.items.size());
  item(in.p, Place::centre, in.N, &L.p);
  item(in.vt, Place::above, in.d, &L.vt, in.p ? p_index : -1);
  item(in.o_acc, Place::right, in.d, &L.o_acc);
  item(in.o, Place::right, in.d, &L.o);
  L.stats.assign(static_cast<std::size_t>(std::max(in.stat_cols, 0)), Rect{});
  for (int k = 0; k < in.stat_cols; ++k) item(true, Place::stats, 1, &L.stats[static_cast<std::size_t>(k)]);
  li.stat_min_w = in.stat_min_w;
  li.gap = in.gap;
  li.title_h = in.title_h;
  li.margin_left = in.margin_left;
  li.margin_bottom = in.margin_bottom;
  li.avail_w = in.avail_w;
  li.avail_h = in.avail_h;
  li.cell = in.cell;
  li.max_cell = in.max_cell;
  const ItemsLayout got = layout_items(li);
  for (std::size_t k = 0; k < out.size(); ++k) *out[k] = got.rects[k];
  L.cell = got.cell;
  L.stat_w = got.stat_w;
  L.width = got.width;
  L.height = got.height;
  return L;
}

}  // namespace

TEST_CASE("matrix layout: rows aligned, keys aligned, nothing overlaps, it fits") {
  MatrixLayoutIn in;
  in.N = 12;
  in.d = 4;
  in.stat_cols = 2;
  in.stat_min_w = 40;
  in.avail_w = 900;
  in.avail_h = 500;
  const MatrixLayout L = layout_matrices(in);
  CHECK(L.q.y == L.s.y);
  CHECK(L.s.y == L.p.y);
  CHECK(L.p.y == L.o.y);
  CHECK(L.stats.at(1).y == L.o.y);
  CHECK(L.kt.x == L.s.x);
  CHECK(L.kt.w == doctest::Approx(L.s.w));
  CHECK(L.vt.x == L.p.x);
  CHECK(L.kt.y + L.kt.h < L.s.y);
  CHECK(L.q.x < L.s.x);
  CHECK(L.s.x < L.p.x);
  CHECK(L.p.x < L.o.x);
  CHECK(L.width <= in.avail_w + 0.5f);
  CHECK(L.height <= in.avail_h + 0.5f);
  CHECK(L.stat_w >= 40);
  const Rect* all[] = {&L.q, &L.kt, &L.s, &L.p, &L.vt, &L.o, &L.stats[0], &L.stats[1]};
  for (const Rect* a : all)
    for (const Rect* b : all)
      if (a != b) CHECK_FALSE(overlap(*a, *b));

  // Without P (attention online), Vᵀ stacks under Kᵀ above S.
  in.p = false;
  in.o_acc = true;
  const MatrixLayout M = layout_matrices(in);
  CHECK_FALSE(M.p.shown);
  CHECK(M.vt.x == M.s.x);
  CHECK(M.kt.y + M.kt.h < M.vt.y);
  CHECK(M.vt.y + M.vt.h < M.s.y);
  CHECK(M.o_acc.x < M.o.x);

  // A fixed zoom is honoured; N = 128, d = 64 still fits at more than 2 px per cell.
  in.cell = 30;
  CHECK(layout_matrices(in).cell == 30);
  MatrixLayoutIn big;
  big.N = 128;
  big.d = 64;
  big.stat_cols = 2;
  big.avail_w = 1000;
  big.avail_h = 600;
  const MatrixLayout B = layout_matrices(big);
  CHECK(B.cell >= 2.0f);
  CHECK(B.width <= big.avail_w + 0.5f);
}

TEST_CASE("what a FlashAttention-1 tile step has on chip and what it writes back") {
  const Recording rec = run_attention(Algorithm::attn_tiled, 12, 4, 64);
  REQUIRE(rec.Br == 4);
  REQUIRE(rec.Bc == 4);
  int Br = 0, Bc = 0;
  paper_blocks(64, 12, 4, Br, Bc);
  CHECK(Br == rec.Br);
  CHECK(Bc == rec.Bc);
  const Step& st = rec.steps[1];  // tile (i=2, j=1)
  const auto items = on_chip(rec, st);
  auto find = [&](const std::string& name) -> const OnChip* {
    for (const OnChip& o : items)
      if (o.name == name) return &o;
    return nullptr;
  };
  for (const char* loaded : {"K₁", "V₁", "Q₂", "O₂", "m₂", "l₂"}) {
    const OnChip* o = find(loaded);
    REQUIRE_MESSAGE(o, loaded);
    CHECK(o->loaded);
  }
  CHECK(find("K₁")->elements == 16);
  CHECK_FALSE(find("K₁")->written_back);
  CHECK(find("O₂")->written_back);
  CHECK(find("m₂")->written_back);
  REQUIRE(find("S₂₁"));
  CHECK_FALSE(find("S₂₁")->loaded);
  CHECK(find("S₂₁")->space == Space::sram);

  const TileBudget t = tile_budget(info(Algorithm::attn_tiled).tile, 4, 4, 4, 64);
  CHECK(t.kv == 32);
  CHECK(t.qo == 32);
  CHECK(t.s == 16);
  CHECK(t.fits_paper());
  CHECK_FALSE(t.fits_with_s());
  CHECK_FALSE(tile_budget(info(Algorithm::attn_tiled).tile, 4, 4, 4, 0).fits_paper());
}

TEST_CASE("region names follow the papers") {
  const Recording soft = run(Algorithm::safe, {3, 2, 5, 1});
  const Step& st = soft.steps[2];
  CHECK(region_name(soft, st, st.reads[0]) == "x₃");
  CHECK(region_name(soft, st, st.reads[1]) == "m");
  const Recording online = run_attention(Algorithm::attn_online, 6, 4, 0);
  const Step& o = online.steps[3];  // q₁ · k₄
  CHECK(region_name(online, o, o.reads[0]) == "q₁");
  CHECK(region_name(online, o, o.reads[1]) == "k₄");
  CHECK(region_name(online, o, o.writes[0]) == "S_{1,4}");
}

TEST_CASE("the compared totals are the IO model's for the same shape") {
  for (const Lesson& l : lessons()) {
    CAPTURE(l.id);
    const Recording rec = record(l.scenario);
    CHECK(expected_io(comparable(rec, rec.algorithm)) == rec.io);
  }
  // Safe reads x three times, online twice: 4 against 3 accesses per element.
  const Recording rec = run(Algorithm::online, {3, 2, 5, 1, 7, 0});
  CHECK(expected_io(comparable(rec, Algorithm::safe)).hbm_accesses() == 4 * 6);
  CHECK(expected_io(comparable(rec, Algorithm::online)).hbm_accesses() == 3 * 6);
  // An attention recording without blocks compares with FlashAttention at the default M.
  const Recording naive = run_attention(Algorithm::attn_naive, 64, 16, 0);
  const Resolved fa = comparable(naive, Algorithm::attn_tiled);
  CHECK(fa.Bc == 64);  // ⌈16384 / 64⌉ = 256, clamped to N
  CHECK(fa.Br == 16);
  CHECK(expected_io(fa).hbm_accesses() <
        expected_io(comparable(naive, Algorithm::attn_naive)).hbm_accesses());
}

TEST_CASE("signed values get a diverging map centred on 0, one-signed values viridis") {
  ValueRange r;
  r.add(-2);
  r.add(3);
  CHECK(r.signed_values());
  CHECK(r.signed_t(0) == doctest::Approx(0.5));
  CHECK(r.signed_t(-3) == doctest::Approx(0.0));
  CHECK(r.signed_t(3) == doctest::Approx(1.0));
  auto rgb = [](ImU32 c) {
    return std::array<int, 3>{static_cast<int>((c >> IM_COL32_R_SHIFT) & 0xFF), static_cast<int>((c >> IM_COL32_G_SHIFT) & 0xFF),
                              static_cast<int>((c >> IM_COL32_B_SHIFT) & 0xFF)};
  };
  const auto zero = rgb(value_fill(Palette{}, CellKind::finite, r, 0.0));
  CHECK(std::abs(zero[0] - zero[2]) < 16);  // grey at 0
  const auto neg = rgb(value_fill(Palette{}, CellKind::finite, r, -2.0));
  const auto pos = rgb(value_fill(Palette{}, CellKind::finite, r, 3.0));
  CHECK(neg[2] > neg[0]);  // negative: blue side
  CHECK(pos[0] > pos[2]);  // positive: orange side
  ValueRange p;
  p.add(0.1);
  p.add(0.9);
  CHECK_FALSE(p.signed_values());
  CHECK(value_fill(Palette{}, CellKind::finite, p, 0.9) == heat(1.0f));
}

TEST_CASE("a column standing for many elements shows a nan first, then +inf, then the largest, never an undefined one") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  ColumnPick p;
  pick_into(p, 0, false, 99.0);  // not computed yet: skipped
  CHECK(p.index == -1);
  CHECK(p.defined == 0);
  pick_into(p, 1, true, -inf);
  CHECK(p.index == 1);
  pick_into(p, 2, true, 0.5);
  pick_into(p, 3, true, 3.0);
  pick_into(p, 4, true, -7.0);
  CHECK(p.index == 3);
  CHECK(p.value == 3.0);
  CHECK(p.kind == CellKind::finite);
  pick_into(p, 5, true, inf);
  CHECK(p.index == 5);
  pick_into(p, 6, true, 1e300);  // finite does not displace +inf
  CHECK(p.index == 5);
  pick_into(p, 7, true, nan);
  CHECK(p.index == 7);
  CHECK(p.kind == CellKind::nan);
  pick_into(p, 8, true, inf);
  CHECK(p.index == 7);
  CHECK(p.defined == 8);
  // Bars that hang down (log y): the largest magnitude.
  ColumnPick d;
  for (int i = 0; i < 4; ++i) pick_into(d, i, true, -0.5 * (i + 1), true);
  CHECK(d.index == 3);
  CHECK(d.value == -2.0);
}

TEST_CASE("the close-up of a step: its tile's query rows and keys, or its one query row") {
  // FlashAttention-1 at N = 12, d = 4, M = 64: Br = Bc = 4; step 1 is tile (i = 2, j = 1).
  const Recording tiled = run_attention(Algorithm::attn_tiled, 12, 4, 64);
  // The inputs are read, never written; what the steps compute is.
  for (const char* input : {"Q", "K", "V"}) CHECK_FALSE(tiled.buffers[static_cast<std::size_t>(tiled.find_buffer(input))].written);
  for (const char* computed : {"S", "P", "O", "m", "l"}) CHECK(tiled.buffers[static_cast<std::size_t>(tiled.find_buffer(computed))].written);
  CloseUp c = close_up(tiled, &tiled.steps[1]);
  CHECK(c.shown);
  CHECK(c.r0 == 4);
  CHECK(c.r1 == 8);
  CHECK(c.k0 == 0);
  CHECK(c.k1 == 4);
  CHECK(c.heading == "tile (i = 2, j = 1): queries 5–8 · keys 1–4");
  CHECK_FALSE(close_up(tiled, nullptr).shown);
  // N = 10: the last Q block has two rows, the last K/V block two keys.
  const Recording ragged = run_attention(Algorithm::attn_tiled, 10, 4, 64);
  bool last_seen = false;
  for (const Step& st : ragged.steps) {
    if (st.tile_i != 2 || st.tile_j != 2) continue;
    c = close_up(ragged, &st);
    CHECK(c.r0 == 8);
    CHECK(c.r1 == 10);
    CHECK(c.k0 == 8);
    CHECK(c.k1 == 10);
    last_seen = true;
  }
  CHECK(last_seen);
  // Attention online: the step's query row, over every key.
  const Recording online = run_attention(Algorithm::attn_online, 8, 4, 0);
  int rows_seen = 0;
  for (const Step& st : online.steps) {
    if (st.row < 0) continue;
    c = close_up(online, &st);
    CHECK(c.r0 == st.row);
    CHECK(c.r1 == st.row + 1);
    CHECK(c.k0 == 0);
    CHECK(c.k1 == 8);
    ++rows_seen;
  }
  CHECK(rows_seen > 8);
  // FlashAttention-2's last step of a Q block divides by l: no key tile, so no S or P̃ in it.
  const Recording v2 = run_attention(Algorithm::attn_tiled_v2, 12, 4, 64);
  bool final_seen = false;
  for (const Step& st : v2.steps)
    if (st.tile_i >= 0 && st.tile_j < 0) {
      c = close_up(v2, &st);
      CHECK(c.shown);
      CHECK(c.k1 == c.k0);
      CHECK(c.heading.find("Q block i = ") == 0);
      final_seen = true;
    }
  CHECK(final_seen);
}

TEST_CASE("the reasons for ∞ and −∞ and nan and the names of what a step moves are in the papers' notation") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Recording> recs;
  for (Algorithm a : kAllAlgorithms) {
    Scenario s;
    s.algorithm = a;
    s.chunks = 2;
    s.causal = info(a).takes_mask;
    s.n = 6;
    s.d = 2;
    s.block_rows = 2;
    s.block_cols = 2;
    if (takes_qkv(a)) {
      // Row 1 overflows to −∞ at every key in fp16 (300 · −300); row 2 meets +∞ in V.
      s.precision = Precision::fp16;
      s.q = {{300, 0}, {0, 1}, {0, -1}, {0, 2}};
      s.k = {{-300, 0}, {-300, 1}, {-300, -1}, {-300, 0.5}};
      s.v = {{1, 0}, {0, inf}, {1, 1}, {-1, 2}};
    } else {
      s.precision = Precision::fp16;
      s.x = {{3, 2, 5, 12}, {-inf, 1, 2, 1e-5}, {-inf, -inf, -inf, -inf}, {inf, 1, -inf, std::nan("")}};
    }
    recs.push_back(record(s));
  }
  for (const Recording& rec : recs) {
    CAPTURE(algorithm_id(rec.algorithm));
    Cursor cur(rec);
    for (int k : {0, rec.step_count() / 2, rec.step_count() - 1}) {
      cur.seek(k);
      const Step& st = rec.steps[static_cast<std::size_t>(k)];
      for (const Region& g : st.reads) CHECK(notation::ascii_form(region_name(rec, st, g)).empty());
      for (const Region& g : st.writes) CHECK(notation::ascii_form(region_name(rec, st, g)).empty());
      for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b)
        for (int r = 0; r < rec.buffers[b].rows; ++r)
          for (int c = 0; c < rec.buffers[b].cols; ++c) {
            const std::string why = nonfinite_reason(rec, cur.state(), b, r, c);
            CAPTURE(why);
            CHECK(notation::ascii_form(why).empty());
          }
    }
  }
}

TEST_CASE("memory panel: during the forward a backward row runs first, the SRAM budget is the forward's tile, then the backward's") {
  // Lesson 12 showed the backward's "Kⱼ + Vⱼ + dKⱼ + dVⱼ + Qᵢ + dOᵢ + dQᵢ = 112 > M: does not fit"
  // at its first step, where FlashAttention-2's forward holds Qᵢ, Kⱼ, Vⱼ, Oᵢ (64 ≤ M).
  const Recording forward = run_attention(Algorithm::attn_tiled_v2, 8, 4, 64);
  const Recording both = run_attention(Algorithm::attn_flash_backward, 8, 4, 64);
  // The forward's steps are the first passes, as many as a forward run of the same input has.
  const int forward_passes = forward.pass_count();
  REQUIRE(forward_passes >= 1);
  REQUIRE(both.pass_count() > forward_passes);
  int seen_forward = 0, seen_backward = 0;
  for (const Step& st : both.steps) {
    CAPTURE(st.label);
    const bool in_forward = st.pass <= forward_passes;
    const TileShape& t = step_tile(both, &st);
    CHECK(std::string(t.paper_sum) == (in_forward ? "Qᵢ + Kⱼ + Vⱼ + Oᵢ" : "Kⱼ + Vⱼ + dKⱼ + dVⱼ + Qᵢ + dOᵢ + dQᵢ"));
    (in_forward ? seen_forward : seen_backward) += 1;
  }
  CHECK(seen_forward == forward.step_count());
  CHECK(seen_backward > 0);
  // The forward's budget at these blocks: Br = Bc = 4, d = 4: 2·4·4 + 2·4·4 = 64 ≤ 64.
  const TileBudget fb = tile_budget(step_tile(both, &both.steps.front()), both.Br, both.Bc, both.d, 64);
  CHECK(both.Br == 4);
  CHECK(both.Bc == 4);
  CHECK(fb.paper == 2 * 4 * 4 + 2 * 4 * 4);
  CHECK(fb.fits_paper());
  // The backward's: 4·4·4 + 3·4·4 = 112 > 64.
  const TileBudget bb = tile_budget(step_tile(both, &both.steps.back()), both.Br, both.Bc, both.d, 64);
  CHECK(bb.paper == 4 * 4 * 4 + 3 * 4 * 4);
  CHECK_FALSE(bb.fits_paper());
}

TEST_CASE("a part of a tile step has on chip all that the step holds there, and nothing not yet computed") {
  // FlashAttention-2 keeps O_i^(j), m_i and l_i on chip for the whole Q block: while S_ij is
  // computed (the first part) they are there, not yet updated. The memory panel listed only
  // what the part had touched. The reference, from the states the cursor replays: a region the
  // whole step writes to an on-chip buffer (or keeps on chip) whose every cell had a value
  // before the step is on chip in every part; a region listed in a part is read by the step or
  // has every cell defined by then. Every algorithm whose steps have parts, causal and not.
  int held_seen = 0;
  for (const AlgorithmInfo& row : algorithm_table()) {
    for (const bool causal : {false, true}) {
      if (causal && !takes_qkv(row.algorithm)) continue;
      Scenario s = rows::small_run(row.algorithm, takes_qkv(row.algorithm) ? 12 : 6, 4);
      s.causal = causal;
      s.sram = 64;
      const std::string id(row.id);
      CAPTURE(id);
      CAPTURE(causal);
      const Recording rec = record(s);
      Cursor before(rec), at(rec);
      for (int k = 0; k < rec.step_count(); ++k) {
        const Step& st = rec.steps[static_cast<std::size_t>(k)];
        if (st.parts.empty()) continue;
        CAPTURE(st.label);
        const Step* prev = k > 0 ? &rec.steps[static_cast<std::size_t>(k - 1)] : nullptr;
        before.seek(k - 1);
        auto all_defined = [&](const Cursor& c, const Region& g) {
          for (int r = g.r0; r < g.r1; ++r)
            for (int col = g.c0; col < g.c1; ++col)
              if (!c.defined(g.buffer, r, col)) return false;
          return true;
        };
        for (int p = 0; p + 1 < static_cast<int>(st.parts.size()); ++p) {
          CAPTURE(p);
          at.seek(k, p);
          const Step part = step_as_of_part(rec, k, p);
          const std::vector<OnChip> items = on_chip(rec, part, prev);
          auto listed = [&](const Region& g) {
            return std::any_of(items.begin(), items.end(), [&](const OnChip& o) { return o.region == g; });
          };
          for (const Region& g : st.writes) {
            const bool chip = rec.buffers[static_cast<std::size_t>(g.buffer)].space != Space::hbm ||
                              std::any_of(st.kept.begin(), st.kept.end(), [&](const Region& kk) { return kk == g; });
            if (chip && all_defined(before, g)) {
              CAPTURE(rec.buffers[static_cast<std::size_t>(g.buffer)].name);
              CHECK(listed(g));
            }
          }
          for (const OnChip& o : items) {
            const bool read = std::any_of(st.reads.begin(), st.reads.end(), [&](const Region& g) { return g == o.region; });
            CAPTURE(o.name);
            CHECK((read || all_defined(at, o.region)));
          }
          held_seen += static_cast<int>(part.held.size());
        }
      }
    }
  }
  CHECK(held_seen > 0);
  // The case that was wrong: FlashAttention-2, tile (i=2, j=2), while S₂₂ is computed.
  Scenario s = rows::small_run(Algorithm::attn_tiled_v2, 12, 4);
  s.sram = 64;
  const Recording rec = record(s);
  int k = 0;
  while (k < rec.step_count() && rec.steps[static_cast<std::size_t>(k)].label != "tile (i=2, j=2)") ++k;
  REQUIRE(k < rec.step_count());
  std::vector<std::string> names;
  for (const OnChip& o : on_chip(rec, step_as_of_part(rec, k, 0), &rec.steps[static_cast<std::size_t>(k - 1)]))
    names.push_back(o.name);
  // The accumulator on chip is still O₂⁽¹⁾: the tile's own update is the last part.
  for (const char* held : {"m₂", "l₂", "O₂^{(1)} (not yet divided)"}) {
    CAPTURE(held);
    CHECK(std::find(names.begin(), names.end(), held) != names.end());
  }
  CHECK(std::find(names.begin(), names.end(), "\\~P₂₂") == names.end());
}

TEST_CASE("memory panel: what every step of every algorithm loads and writes back is what its HBM counters count") {
  // The arrows "load N" and "write N" and the tiles marked loaded or written back are the
  // step's HBM traffic; the FlashAttention-2 backward's last step of a K/V block (dKⱼ, dVⱼ from
  // the chip to HBM) showed "load 32" where it reads nothing from HBM.
  // Every row of the table on a small input, and every lesson's own (causal masks, rows,
  // explicit blocks).
  std::vector<std::pair<std::string, Scenario>> runs;
  for (const AlgorithmInfo& row : algorithm_table()) {
    Scenario s = rows::small_run(row.algorithm, takes_qkv(row.algorithm) ? 8 : 6, 4);
    s.seed = 3;
    runs.emplace_back(std::string(row.id), s);
  }
  for (const Lesson& l : lessons()) runs.emplace_back("lesson " + l.id, l.scenario);
  for (const auto& [id_, s] : runs) {
    const std::string& id = id_;
    CAPTURE(id);
    const Recording rec = record(s);
    REQUIRE(rec.step_count() > 0);
    IoCounters before{};
    for (std::size_t k = 0; k < rec.steps.size(); ++k) {
      const Step& st = rec.steps[k];
      CAPTURE(st.label);
      long long loaded = 0, back = 0;
      for (const OnChip& o : on_chip(rec, st, k > 0 ? &rec.steps[k - 1] : nullptr)) {
        if (o.loaded) loaded += o.elements;
        if (o.written_back) back += o.elements;
      }
      CHECK(static_cast<unsigned long long>(loaded) == st.io.hbm_reads - before.hbm_reads);
      CHECK(static_cast<unsigned long long>(back) == st.io.hbm_writes - before.hbm_writes);
      before = st.io;
    }
  }
}

TEST_CASE("text lines: each line takes the words that fit it, a space between two, and a paragraph at least one line") {
  // The reference: a line starts at a word (not at an empty one, but for the last) and takes the
  // next while the words so far and one space between each two, summed afresh, are no wider
  // than the line. Widths in quarters, so every sum is exact.
  auto reference = [](const std::vector<float>& w, float space, float width) {
    int lines = 0;
    std::size_t k = 0;
    do {
      while (k + 1 < w.size() && w[k] == 0) ++k;
      std::size_t end = k + 1;
      while (end < w.size()) {
        double sum = 0;
        for (std::size_t j = k; j <= end; ++j) sum += w[j] + (j > k ? space : 0.0);
        if (sum > width) break;
        ++end;
      }
      ++lines;
      k = end;
    } while (k < w.size());
    return lines;
  };
  const float space = 3.25f;
  const std::vector<std::vector<float>> paragraphs = {
      {10, 20.5f, 7.25f, 30, 12, 12, 1.5f, 40, 8, 8, 8},
      {},                       // an empty line
      {95.75f},                 // one word wider than the narrow widths
      {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
      {0, 0, 18},               // "  x": words of no width
      {12, 0, 30, 0, 0},        // "a  b  ": two spaces between, two after
      {0},                      // "": one empty line
  };
  MeasuredTexts texts(13.0f, space);
  texts.begin_text();  // text 0: all the paragraphs
  for (const std::vector<float>& p : paragraphs) texts.add_paragraph(p);
  for (const std::vector<float>& p : paragraphs) {  // texts 1 to 5: one each
    texts.begin_text();
    texts.add_paragraph(p);
  }
  REQUIRE(texts.size() == 1 + paragraphs.size());
  CHECK(texts.font_size() == 13.0f);
  for (float width = 1; width <= 200; width += 0.25f) {
    CAPTURE(width);
    int all = 0, most = 1;
    for (std::size_t p = 0; p < paragraphs.size(); ++p) {
      const int expect = reference(paragraphs[p], space, width);
      CHECK(texts.lines(1 + p, width) == expect);
      all += expect;
      most = std::max(most, expect);
    }
    CHECK(texts.lines(0, width) == all);
    CHECK(texts.most_lines(width) == std::max(most, all));
  }
  // Exactly as wide as the line fits; a quarter less does not.
  const float two = 10 + space + 20.5f;
  std::vector<std::pair<std::size_t, std::size_t>> at;
  greedy_lines(paragraphs[0].data(), 2, space, two, [&](std::size_t a, std::size_t b) { at.emplace_back(a, b); });
  CHECK(at == std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}});
  at.clear();
  greedy_lines(paragraphs[0].data(), 2, space, two - 0.25f, [&](std::size_t a, std::size_t b) { at.emplace_back(a, b); });
  CHECK(at == std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 2}});
  CHECK(MeasuredTexts().most_lines(100) == 1);  // no texts
}

TEST_CASE("text lines: a bracket's words are glued, and kept on one line where that leaves the line before at least half full") {
  using G = std::vector<std::uint8_t>;
  CHECK(bracket_glue({"m", "=", "exp(x", "−", "m)", "+", "f([a,", "b])", "c"}) == G{0, 0, 0, 1, 1, 0, 0, 1, 0});
  CHECK(bracket_glue({"a)", "b", "c"}) == G{0, 0, 0});     // a ")" with no "(" glues nothing
  CHECK(bracket_glue({"(a", "b", "c"}) == G{0, 1, 1});     // an unclosed "(" glues the rest
  CHECK(bracket_glue({"(a", "", "b)", "c"}) == G{0, 0, 0, 0});  // two spaces in a row: not glued
  CHECK(bracket_glue({}).empty());

  using Lines = std::vector<std::pair<std::size_t, std::size_t>>;
  const auto lay = [](const std::vector<float>& w, const G& glued, float width) {
    Lines at;
    greedy_lines(w.data(), glued.data(), w.size(), 1.0f, width, [&](std::size_t a, std::size_t b) { at.emplace_back(a, b); });
    return at;
  };
  // Plain words would take three on the first line (10 + 1 + 10 + 1 + 10 = 32 ≤ 35); the group of
  // words 2–4 (32 wide) goes whole to the next line, leaving 21 of 35 behind.
  CHECK(lay({10, 10, 10, 10, 10}, {0, 0, 0, 1, 1}, 35) == Lines{{0, 2}, {2, 5}});
  CHECK(lay({10, 10, 10, 10, 10}, {0, 0, 0, 0, 0}, 35) == Lines{{0, 3}, {3, 5}});
  // A group that fits where it starts stays there.
  CHECK(lay({10, 5, 5, 10}, {0, 1, 1, 0}, 30) == Lines{{0, 3}, {3, 4}});
  // A group that would leave 10 of 70 behind breaks inside, as plain words do.
  CHECK(lay({10, 20, 20, 20}, {0, 0, 1, 1}, 70) == Lines{{0, 3}, {3, 4}});
  // A group wider than the line breaks inside.
  CHECK(lay({10, 20, 20}, {0, 0, 1}, 30) == Lines{{0, 1}, {1, 2}, {2, 3}});
  // A group at the start of a paragraph, wider than the line: word by word from the start.
  CHECK(lay({20, 20, 5}, {0, 1, 0}, 30) == Lines{{0, 1}, {1, 3}});

  // Random paragraphs: the lines cover the words in order; a line is within the width or one
  // word; a group is split only where it is wider than the line or the words before it on its
  // first line took under half of it; and MeasuredTexts counts what greedy_lines lays out.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> width_of(0.0f, 30.0f);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = 1 + rng() % 14;
    std::vector<float> w(n);
    G glued(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      w[k] = rng() % 9 == 0 ? 0.0f : width_of(rng);
      if (k > 0 && w[k] > 0 && w[k - 1] > 0 && rng() % 2 == 0) glued[k] = 1;
    }
    const float width = 5.0f + static_cast<float>(rng() % 80);
    CAPTURE(trial);
    const Lines at = lay(w, glued, width);
    REQUIRE(!at.empty());
    std::size_t next = 0;
    const auto span = [&](std::size_t a, std::size_t b) {
      float sum = 0;
      for (std::size_t k = a; k < b; ++k) sum += w[k] + (k > a ? 1.0f : 0.0f);
      return sum;
    };
    std::vector<std::size_t> line_of(n, 0), line_start(n, 0);
    for (std::size_t i = 0; i < at.size(); ++i) {
      const auto [a, b] = at[i];
      CHECK(a >= next);  // empty words at a line's start are skipped, never reordered
      for (std::size_t k = next; k < a; ++k) CHECK(w[k] == 0);
      CHECK(b >= a);
      CHECK((b - a <= 1 || span(a, b) <= width + 1e-3f));  // sums taken in another order
      for (std::size_t k = a; k < b; ++k) line_of[k] = i, line_start[k] = a;
      next = b;
    }
    CHECK(next == n);
    for (std::size_t k = 0; k < n;) {
      std::size_t end = k + 1;
      while (end < n && glued[end]) ++end;
      if (end > k + 1 && line_of[k] != line_of[end - 1]) {
        const bool too_wide = span(k, end) > width;
        const bool little_before = line_start[k] < k && span(line_start[k], k) < width / 2 + 1e-3f;
        CHECK((too_wide || little_before));
      }
      k = end;
    }
    MeasuredTexts texts(13.0f, 1.0f);
    texts.begin_text();
    texts.add_paragraph(w, glued);
    CHECK(texts.lines(0, width) == static_cast<int>(at.size()));
  }
}
