// Scenario checking: parsing typed inputs, the block-size rule, clamping and refusals, and how
// inputs are rounded to the chosen format.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/scenario.h"
#include "tests/core/support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace flashstep;
using support::Rows;

namespace {

// The message of the InputError that f throws ("" when it throws none).
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Value of a 16-bit pattern, decoded from the IEEE layout (fp16: 5 exponent bits, 10 fraction
// bits; bf16: the upper half of an fp32).
double fp16_bits_value(std::uint32_t bits) {
  const int e = static_cast<int>((bits >> 10) & 0x1F);
  const double frac = static_cast<double>(bits & 0x3FF);
  return e == 0 ? std::ldexp(frac, -24) : std::ldexp(1024.0 + frac, e - 25);
}
double bf16_bits_value(std::uint32_t bits) {
  const std::uint32_t wide = bits << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return static_cast<double>(f);
}

// The format value nearest to x (ties to the even pattern), by trying every positive finite one.
double nearest(Precision p, double x) {
  const bool fp16 = p == Precision::fp16;
  const std::uint32_t last = fp16 ? 0x7BFF : 0x7F7F;  // the largest finite pattern
  double best = 0, best_diff = INFINITY;
  std::uint32_t best_bits = 0;
  for (std::uint32_t b = 0; b <= last; ++b) {
    const double v = fp16 ? fp16_bits_value(b) : bf16_bits_value(b);
    const double diff = std::fabs(v - std::fabs(x));
    if (diff < best_diff || (diff == best_diff && (b & 1) == 0 && (best_bits & 1) == 1)) {
      best = v;
      best_diff = diff;
      best_bits = b;
    }
  }
  return std::copysign(best, x);
}

Scenario attention_shape(int N, int d) {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = N;
  s.d = d;
  return s;
}

}  // namespace

TEST_CASE("parse_rows accepts the ways people type a vector or a matrix") {
  CHECK(parse_rows("3, 2, 5, 1") == Rows{{3, 2, 5, 1}});
  CHECK(parse_rows("[3,2,5,1]") == Rows{{3, 2, 5, 1}});
  CHECK(parse_rows("3 2\t5  1") == Rows{{3, 2, 5, 1}});
  CHECK(parse_rows("1,2;3,4") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("1, 2;\n3, 4;") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("1e-3, 2.5E2, -0.5") == Rows{{1e-3, 250.0, -0.5}});
  // One comma may end a row (a list copied with its last comma); spaces still separate.
  CHECK(parse_rows("1,2,") == Rows{{1, 2}});
  CHECK(parse_rows("1, 2, ;3 4,") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("[1, 2], [3, 4]") == Rows{{1, 2, 3, 4}});
  CHECK(parse_rows("1 , 2") == Rows{{1, 2}});
  // U+2212, the minus sign of typeset slides.
  CHECK(parse_rows("\xE2\x88\x92" "3, 2") == Rows{{-3, 2}});
  const Rows special = parse_rows("inf, -inf, nan, \xE2\x88\x92" "inf");
  REQUIRE(special.size() == 1);
  REQUIRE(special[0].size() == 4);
  CHECK(special[0][0] == INFINITY);
  CHECK(special[0][1] == -INFINITY);
  CHECK(std::isnan(special[0][2]));
  CHECK(special[0][3] == -INFINITY);
}

TEST_CASE("parse_rows refuses what is not a list of numbers, naming the token or the row") {
  std::string msg = input_error([] { parse_rows("3,x"); });
  CHECK(contains(msg, "'x'"));
  CHECK(contains(msg, "value 2"));
  msg = input_error([] { parse_rows("3, 2x, 1"); });
  CHECK(contains(msg, "'2x'"));
  for (const char* empty : {"", "   ", ";", "[]"}) {
    CAPTURE(empty);
    CHECK(contains(input_error([&] { parse_rows(empty); }), "empty"));
  }
  msg = input_error([] { parse_rows("1,2;3"); });
  CHECK(contains(msg, "row 2"));
  msg = input_error([] { parse_rows("1,2,3;4,5,6;7,8"); });
  CHECK(contains(msg, "row 3"));
  CHECK(contains(input_error([] { parse_rows("1, 1e999"); }), "'1e999'"));
}

TEST_CASE("parse_rows refuses an empty value, naming its position, instead of dropping it") {
  struct Case {
    const char* text;
    const char* position;
  };
  const Case cases[] = {
      {"1,,2", "value 2 of row 1"},     {",1", "value 1 of row 1"},
      {"1, ,2", "value 2 of row 1"},    {"1,2,,", "value 3 of row 1"},
      {"1,2;3,,4", "value 2 of row 2"}, {"1,2;,3,4", "value 1 of row 2"},
      {",", "value 1 of row 1"},        {"[1,,2]", "value 2 of row 1"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string msg = input_error([&] { parse_rows(c.text); });
    CHECK(contains(msg, c.position));
    CHECK(contains(msg, "empty"));
  }
}

TEST_CASE("parse_rows refuses an empty row, naming it, instead of dropping it") {
  struct Case {
    const char* text;
    const char* position;
  };
  const Case cases[] = {
      {"1,2;;3,4", "row 2"}, {";1,2", "row 1"}, {"1,2;3,4;;5,6", "row 3"},
      {"1,2; ;3,4", "row 2"}, {"1,2;\n;3,4", "row 2"}, {"1,2\n;3,4", "row 2"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string msg = input_error([&] { parse_rows(c.text); });
    CHECK(contains(msg, c.position));
    CHECK(contains(msg, "empty"));
  }
  // A ';' or a line break closing the last row, and blank lines between rows, are layout.
  CHECK(parse_rows("1,2;3,4;") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("1,2;\n3,4\n") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("1,2\n\n3,4") == Rows{{1, 2}, {3, 4}});
  CHECK(parse_rows("1,2;\r\n3,4") == Rows{{1, 2}, {3, 4}});
}

TEST_CASE("block sizes from the SRAM budget: Bc = ceil(M / 4d), Br = min(Bc, d)") {
  struct Case {
    int M, d, Bc, Br;
  };
  const Case cases[] = {
      {16384, 64, 64, 64}, {1024, 16, 16, 16}, {1000, 16, 16, 16}, {300, 8, 10, 8},
      {100, 4, 7, 4},      {257, 64, 2, 2},    {4096, 1, 1024, 1}, {0, 32, 128, 32},  // 0: kDefaultSram
  };
  const int N = 2000;
  for (const Case& c : cases) {
    CAPTURE(c.M);
    CAPTURE(c.d);
    for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
      Scenario s = attention_shape(N, c.d);
      s.algorithm = a;
      s.sram = c.M;
      const Resolved r = resolve(s);
      CHECK(r.Bc == c.Bc);
      CHECK(r.Br == c.Br);
      CHECK(r.Tc == (N + c.Bc - 1) / c.Bc);
      CHECK(r.Tr == (N + c.Br - 1) / c.Br);
      // Derived, not given: a note says which values the rule gave (not an adjustment).
      CHECK(r.notices.empty());
      REQUIRE(r.derived.size() == 1);
      CHECK(contains(r.derived[0], "Br = " + std::to_string(c.Br) + ", Bc = " + std::to_string(c.Bc) +
                                       " derived from M = " + std::to_string(c.M ? c.M : kDefaultSram)));
      CHECK(contains(r.derived[0], "Bc = ⌈M/4d⌉"));
    }
  }
  CHECK(kDefaultSram == 16384);
  // A given block size wins over the rule; the other one still follows it.
  Scenario s = attention_shape(100, 8);
  s.sram = 300;
  s.block_rows = 3;
  Resolved r = resolve(s);
  CHECK(r.Br == 3);
  CHECK(r.Bc == 10);
  CHECK(r.derived == std::vector<std::string>{"Bc = 10 derived from M = 300: Bc = ⌈M/4d⌉ = 10"});
  s.block_rows = 0;
  s.block_cols = 6;
  r = resolve(s);
  CHECK(r.Br == 8);
  CHECK(r.Bc == 6);
  CHECK(r.derived == std::vector<std::string>{"Br = 8 derived from M = 300: Br = min(⌈M/4d⌉, d) = 8"});
  s.block_rows = 3;  // both given: nothing derived, nothing to say
  CHECK(resolve(s).notices.empty());
  CHECK(resolve(s).derived.empty());
}

TEST_CASE("block sizes larger than N are clamped to N, with a notice when they were given") {
  Scenario s = attention_shape(10, 4);
  s.block_rows = 16;
  s.block_cols = 32;
  Resolved r = resolve(s);
  CHECK(r.Br == 10);
  CHECK(r.Bc == 10);
  CHECK(r.Tr == 1);
  CHECK(r.Tc == 1);
  REQUIRE(r.notices.size() == 2);
  CHECK(contains(r.notices[0], "16"));
  CHECK(contains(r.notices[0], "N = 10"));
  CHECK(contains(r.notices[1], "32"));
  // The notices travel with the Recording, for the app to show.
  CHECK(record(r).notices == r.notices);
  // From the rule (Bc = 1024 for M = 16384, d = 4) the clamp is part of the derivation's notice.
  s.block_rows = s.block_cols = 0;
  r = resolve(s);
  CHECK(r.Bc == 10);
  CHECK(r.Br == 4);
  CHECK(r.notices.empty());
  REQUIRE(r.derived.size() == 1);
  CHECK(r.derived[0] == "Br = 4, Bc = 10 derived from M = 16384 (the default): Bc = ⌈M/4d⌉ = 1024, "
                        "capped at N = 10; Br = min(Bc, d) = 4");
  CHECK(record(r).derived == r.derived);
}

TEST_CASE("resolve refuses bad parameters with a message naming the field") {
  Scenario s = attention_shape(16, 64);
  s.sram = 100;  // less than one row each of Q_i, K_j, V_j, O_i
  CHECK(contains(input_error([&] { resolve(s); }), "sram"));
  s.sram = 0;
  s.block_rows = -1;
  CHECK(contains(input_error([&] { resolve(s); }), "Br"));
  s.block_rows = 0;
  s.block_cols = -2;
  CHECK(contains(input_error([&] { resolve(s); }), "Bc"));

  Scenario c;
  c.algorithm = Algorithm::chunked;
  c.x = {{3, 2, 5, 1}};
  c.chunks = 5;  // more workers than elements: one per element, with a notice
  Resolved clamped = resolve(c);
  CHECK(clamped.chunks == 4);
  REQUIRE(clamped.notices.size() == 1);
  CHECK(clamped.notices[0] == "5 workers are more than the n = 4 elements; using 4 workers");
  std::string msg;
  c.chunks = 0;
  CHECK(contains(input_error([&] { resolve(c); }), "chunks"));
  c.chunks = 4;
  CHECK(resolve(c).chunks == 4);

  for (Algorithm a : kAllAlgorithms) {
    if (info(a).takes_mask) continue;
    CAPTURE(algorithm_id(a));
    Scenario m;
    m.algorithm = a;
    m.x = {{1, 2, 3}};
    m.chunks = 2;
    m.causal = true;
    msg = input_error([&] { resolve(m); });
    CHECK(contains(msg, "causal"));
    CHECK(contains(msg, std::string(algorithm_id(a))));
  }

  Scenario q;
  q.algorithm = Algorithm::attn_naive;
  q.q = {{1, 2}, {3, 4}};
  q.k = {{1, 2}};
  q.v = {{1, 2}, {3, 4}};
  CHECK(contains(input_error([&] { resolve(q); }), "K 1 x 2"));
  q.k = q.q;
  q.v = {{1, 2}, {3}};
  CHECK(contains(input_error([&] { resolve(q); }), "V"));
  q.v = q.q;
  q.x = {{1, 2}};
  CHECK(contains(input_error([&] { resolve(q); }), "attn-naive"));

  Scenario t;
  t.algorithm = Algorithm::safe;
  t.scale_mode = ScaleMode::value;
  t.scale_value = INFINITY;
  CHECK(contains(input_error([&] { resolve(t); }), "scale"));
  Scenario n;
  n.algorithm = Algorithm::online;
  n.n = 0;
  CHECK(contains(input_error([&] { resolve(n); }), "n = 0"));
}

TEST_CASE("the scale: 1/sqrt(d) uses the d of the given Q, a number is used as it is") {
  Scenario s;
  s.algorithm = Algorithm::attn_online;
  s.q = s.k = s.v = Rows(3, std::vector<double>(16, 0.5));
  s.d = 4;  // ignored: Q says d = 16
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = resolve(s);
  CHECK(r.d == 16);
  CHECK(r.scale == 0.25);
  s.scale_mode = ScaleMode::value;
  s.scale_value = 0.3;
  CHECK(resolve(s).scale == 0.3);
  s.scale_mode = ScaleMode::none;
  CHECK(resolve(s).scale == 1.0);
}

TEST_CASE("random inputs come from the seed: N x d for Q, K, V, rows x n for a softmax") {
  Scenario s = attention_shape(7, 3);
  const Resolved a = resolve(s), b = resolve(s);
  CHECK(a.q.rows() == 7);
  CHECK(a.q.cols() == 3);
  CHECK(support::same_matrix(a.q, b.q));
  CHECK(support::same_matrix(a.v, b.v));
  CHECK_FALSE(support::same_matrix(a.q, a.k));
  s.seed = 2;
  CHECK_FALSE(support::same_matrix(a.q, resolve(s).q));
  Scenario x;
  x.algorithm = Algorithm::safe;
  x.rows = 3;
  x.n = 5;
  const Resolved r = resolve(x);
  CHECK(r.rows == 3);
  CHECK(r.n == 5);
}

TEST_CASE("inputs are rounded to the nearest value of the format, ties to even") {
  std::vector<double> xs = {
      0.1, -0.1, 11.1, 1.0 / 3.0,
      1.0 + 0x1p-11,                 // an fp16 tie: to 1 (even)
      1.0 + 3 * 0x1p-11,             // an fp16 tie: to 1 + 2^-9 (even)
      1.0 + 0x1p-11 + 0x1p-40,       // just above an fp16 tie: up, although fp32 sees the tie
      -(1.0 + 0x1p-11 + 0x1p-40),
      1.0 + 0x1p-8 + 0x1p-40,        // the same for bf16
      1000.0 + 0x1p-2 + 0x1p-30,     // fp16 spacing is 0.5 at 1000
  };
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> wide(-60000.0, 60000.0), narrow(-4.0, 4.0);
  for (int i = 0; i < 40; ++i) {
    xs.push_back(wide(gen));
    xs.push_back(narrow(gen));
  }
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    CAPTURE(precision_name(p));
    Scenario s;
    s.algorithm = Algorithm::safe;
    s.precision = p;
    s.x = {xs};
    const Resolved r = resolve(s);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      CAPTURE(xs[i]);
      const double want = nearest(p, xs[i]);
      CHECK(round_to(p, xs[i]) == want);
      CHECK(r.x(0, static_cast<Eigen::Index>(i)) == want);
    }
  }
  // fp32 is the machine's float, fp64 is kept as it is.
  CHECK(round_to(Precision::fp32, 0.1) == static_cast<double>(0.1f));
  CHECK(round_to(Precision::fp64, 0.1) == 0.1);
}

TEST_CASE("an SRAM too small for one row of each of the tile's d-wide blocks is refused in one line") {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 8;
  s.d = 4;
  s.sram = 15;  // the forward's four blocks Qᵢ, Kⱼ, Vⱼ, Oᵢ need one row each: 4 · 4 = 16
  CHECK(input_error([&] { resolve(s); }) ==
        "sram M = 15 elements is too small: one row of each of Qᵢ, Kⱼ, Vⱼ, Oᵢ needs 4·d = 16");
  s.sram = 16;
  CHECK(input_error([&] { resolve(s); }) == "");
}
