// The sentences beside the numbers (app/ui/model/explain.h) and the lessons' summaries that
// state numbers: each claim is recomputed here from the inputs, by hand, and the sentence must
// state it; the claims the papers refute must be gone.
#include "app/ui/model/explain.h"

#include "app/ui/labs/lab_overflow.h"
#include "app/ui/model/inputs.h"
#include "core/engine.h"
#include "core/io_model.h"
#include "core/lessons.h"
#include "core/text.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// "[a, b, c]" with the app's number format.
std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + num(v[i]);
  return out + "]";
}

// Naive softmax's y in a format whose largest finite number is `max`: e^x above it is inf, so
// l is inf and every finite e^x / inf is 0 while inf / inf is nan.
std::vector<double> naive_y_reference(const std::vector<long double>& x, long double max) {
  std::vector<long double> e;
  long double l = 0;
  for (long double xi : x) {
    const long double ei = std::exp(xi);
    e.push_back(ei > max ? std::numeric_limits<long double>::infinity() : ei);
    l += e.back();
  }
  if (l > max) l = std::numeric_limits<long double>::infinity();
  std::vector<double> y;
  for (long double ei : e) y.push_back(static_cast<double>(ei / l));
  return y;
}

}  // namespace

TEST_CASE("explain: Bc counts rows of K and V, as the field's tooltip says") {
  const std::string t = block_rule_help();
  CHECK(has(t, "rows of K and V"));
  CHECK_FALSE(has(t, "columns of K"));
}

TEST_CASE("explain: the block-size rule leaves room for the score tile, as Theorem 2's proof does") {
  const std::string t = tile_rule_help(kForwardTile);
  // Dao et al. 2022, proof of Theorem 2: Br·Bc = O(M) gives Br = Θ(min(M/d, d)).
  CHECK(has(t, "Theorem 2"));
  CHECK(has(t, "min(M/d, d)"));
  CHECK_FALSE(has(t, "registers"));
  CHECK(has(t, "M/4"));
  // The arithmetic the help states: with Bc = ⌈M/4d⌉ and Br = min(Bc, d), the four d-wide
  // tiles take at most M (up to the rounding of the ceiling) and Br·Bc at most about M/4.
  for (int M : {64, 1000, 16384, 41984})
    for (int d : {1, 4, 16, 64, 128}) {
      CAPTURE(M);
      CAPTURE(d);
      const long long Bc = (M + 4LL * d - 1) / (4LL * d), Br = std::min<long long>(Bc, d);
      CHECK(Br * Bc <= M / 4 + d);
      CHECK(2 * Bc * d + 2 * Br * d <= M + 4LL * d);
    }
}

TEST_CASE("explain: a tile over M only by its score tile is information, not a problem") {
  // Lesson 9: d = 4, M = 64: Bc = ⌈64/16⌉ = 4, Br = min(4, 4) = 4.
  const long long four = 2 * 4 * 4 + 2 * 4 * 4, s = 4 * 4;
  const TileFitLine fit = tile_fit_line(kForwardTile, 4, 4, 4, 64);
  CHECK_FALSE(fit.problem);
  CHECK(has(fit.text(), std::to_string(four) + " ≤ M = 64"));
  CHECK(has(fit.text(), std::to_string(four + s)));
  CHECK_FALSE(has(fit.text(), "> M"));
  // Blocks set by hand so that Q, K, V and O alone exceed M: a problem, said with its numbers.
  const TileFitLine over = tile_fit_line(kForwardTile, 16, 16, 4, 64);
  CHECK(over.problem);
  CHECK(has(over.text(), std::to_string(2 * 16 * 4 + 2 * 16 * 4) + " > M = 64"));
  // Everything within M.
  const TileFitLine all = tile_fit_line(kForwardTile, 2, 2, 2, 64);
  CHECK_FALSE(all.problem);
  CHECK(has(all.text(), std::to_string(2 * 2 * 2 + 2 * 2 * 2 + 2 * 2) + " ≤ M = 64"));
}

TEST_CASE("explain: the SRAM help names the cards and their figures") {
  const std::string t = sram_help();
  CHECK_FALSE(has(t, "100-200"));
  CHECK(has(t, "A100"));
  CHECK(has(t, "H100"));
  for (int kb : {192, 164, 256, 228}) CHECK(has(t, std::to_string(kb) + " KB"));
  // The shared parts in fp32 elements: 164 KB and 228 KB of 4-byte numbers.
  CHECK(has(t, num(164.0 * 1024 / 4)));
  CHECK(has(t, num(228.0 * 1024 / 4)));
}

TEST_CASE("explain: the precision help says what FlashStep rounds and what real kernels keep in fp32") {
  const std::string t = precision_help();
  CHECK_FALSE(has(t, "as hardware does"));
  CHECK(has(t, "fp32"));
  CHECK(has(t, "accumulat"));
  CHECK(has(t, "m, l and O"));
  // Beside the choice, for the 16-bit formats only.
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    CHECK(has(precision_note(p), std::string(precision_name(p))));
    CHECK(has(precision_note(p), "fp32"));
  }
  CHECK(precision_note(Precision::fp32).empty());
  CHECK(precision_note(Precision::fp64).empty());
}

TEST_CASE("explain: the overflowing preset says the score overflows in FlashStep's 16-bit sums, not in a kernel's") {
  // fp16: 300 · (−300) = −90000 is beyond 65504; in fp32, where a real kernel sums q·k, it is not.
  const double b = overflowing_value(Precision::fp16);
  const std::string t = attention_preset_tooltip(0, Precision::fp16);
  CHECK(has(t, num(b) + " · (" + num(-b) + ") = " + num(-b * b)));
  CHECK(has(t, num(65504)));
  CHECK(-b * b > -static_cast<double>(std::numeric_limits<float>::max()));
  CHECK(has(t, "fp32"));
  CHECK(has(t, "finite"));
  // fp32: 1e30 · (−1e30) = −1e60 overflows there too, so a real kernel meets it as well.
  const double b32 = overflowing_value(Precision::fp32);
  const std::string t32 = attention_preset_tooltip(0, Precision::fp32);
  CHECK(has(t32, num(b32) + " · (" + num(-b32) + ") = " + num(-b32 * b32)));
  CHECK(-b32 * b32 < -static_cast<double>(std::numeric_limits<float>::max()));
  CHECK_FALSE(has(t32, "finite in"));
}

TEST_CASE("explain: the overflow lab says which outputs are 0 and which nan, and why") {
  // [1, 2, 12] in fp16: e^12 = 162754.8 > 65504.
  const OverflowRun r = run_overflow(12, Precision::fp16);
  const std::vector<double> y = naive_y_reference({1, 2, 12}, 65504);
  const std::string t = naive_verdict(r, Precision::fp16);
  CHECK(has(t, "y = " + list(y)));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(has(t, num(inf) + " / " + num(inf)));
  // Below the threshold nothing overflows.
  CHECK(has(naive_verdict(run_overflow(11, Precision::fp16), Precision::fp16), "finite"));
}

TEST_CASE("explain: safe softmax's exponentials lie in [0, 1] and the lab names the ones that underflow") {
  // [1, 2, 3000] in fp32: e^{1 − 3000} and e^{2 − 3000} are far below fp32's smallest number.
  const OverflowRun r = run_overflow(3000, Precision::fp32);
  const std::string t = safe_verdict(r, Precision::fp32);
  CHECK(has(t, "[0, 1]"));
  CHECK_FALSE(has(t, "(0, 1]"));
  CHECK(has(t, "underflow"));
  CHECK(has(t, "x₁"));
  CHECK(has(t, "x₂"));
  // [1, 2, 5]: e^{−4}, e^{−3} are normal numbers; nothing underflows.
  const std::string t5 = safe_verdict(run_overflow(5, Precision::fp32), Precision::fp32);
  CHECK(has(t5, "[0, 1]"));
  CHECK_FALSE(has(t5, "underflow"));
}

TEST_CASE("lesson 1 says which outputs are 0 and which nan, as its own input gives them") {
  const Lesson* l = find_lesson("naive");
  REQUIRE(l);
  REQUIRE(l->scenario.precision == Precision::fp16);
  REQUIRE(l->scenario.x.size() == 1);
  std::vector<long double> x(l->scenario.x[0].begin(), l->scenario.x[0].end());
  const std::vector<double> y = naive_y_reference(x, 65504);
  CHECK(has(l->summary, list(y)));
  CHECK_FALSE(has(l->summary, "output turn into nan"));
  // Every element the summary names by its exponential, the finite ones giving 0.
  for (long double xi : x) CHECK(has(l->summary, "e^{" + num(static_cast<double>(xi)) + "}"));
}

TEST_CASE("lesson 7 says FlashAttention's own HBM traffic is still quadratic in N") {
  const Lesson* l = find_lesson("attn-naive");
  REQUIRE(l);
  CHECK_FALSE(has(l->summary, "That N² traffic is what FlashAttention removes"));
  CHECK(has(l->summary, "2Nd + Tc·(2Nd + 2N)"));
  CHECK(has(l->summary, "Θ(N²d²/M)"));
  // The formula the summary states, against the IO model of FlashAttention-1, and quadratic:
  // doubling N with the blocks fixed doubles Tc and so nearly quadruples the reads.
  auto reads = [](int N) {
    Scenario s;
    s.algorithm = Algorithm::attn_tiled;
    s.n = N;
    s.d = 4;
    s.block_rows = s.block_cols = 4;
    const long long Nd = 4LL * N, Tc = (N + 3) / 4;
    const long long formula = 2 * Nd + Tc * (2 * Nd + 2LL * N);
    CHECK(static_cast<long long>(expected_io(resolve(s)).hbm_reads) == formula);
    return static_cast<double>(formula);
  };
  CHECK(reads(256) / reads(128) > 3.9);
}

TEST_CASE("memory panel: streaming attention without tiles says it moves more than materialized attention") {
  // Lesson 8's shape: N = 8, d = 4. Every query reads q once and all of K and V: Nd + 2N²d
  // reads and Nd writes; materialized attention reads 3Nd + 2N² and writes 2N² + Nd.
  Scenario s;
  s.algorithm = Algorithm::attn_online;
  s.n = 8;
  s.d = 4;
  const Recording rec = record(s);
  const long long N = 8, d = 4;
  const long long reads = N * d + 2 * N * N * d, writes = N * d;
  const long long naive = 3 * N * d + 2 * N * N + 2 * N * N + N * d;
  const std::string t = streaming_traffic_note(rec);
  CHECK(has(t, std::to_string(reads + writes)));  // 576
  CHECK(has(t, std::to_string(naive)));           // 384
  CHECK(has(t, std::to_string(2 * N * N * d) + " of the " + std::to_string(reads)));
  // Materialized and tiled attention get no such note.
  s.algorithm = Algorithm::attn_naive;
  CHECK(streaming_traffic_note(record(s)).empty());
  s.algorithm = Algorithm::attn_tiled;
  CHECK(streaming_traffic_note(record(s)).empty());
}

namespace {

// A tile that holds more than the forward's, as FlashAttention-2's backward does (Kⱼ, Vⱼ, dKⱼ,
// dVⱼ of Bc × d; Qᵢ, Oᵢ, dOᵢ, dQᵢ of Br × d; Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ of Br × Bc; Lᵢ and Dᵢ).
const TileShape kBigTile{4, 4, 4, 2, "Kⱼ, Vⱼ, dKⱼ, dVⱼ", "Qᵢ, Oᵢ, dOᵢ, dQᵢ", "Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ",
                         "Qᵢ + Kⱼ + Vⱼ + Oᵢ + dOᵢ + dQᵢ + dKⱼ + dVⱼ"};

}  // namespace

TEST_CASE("explain: the tile line counts the row's own tile, not the forward's") {
  CHECK(tile_blocks(kForwardTile) == "Qᵢ, Kⱼ, Vⱼ, Oᵢ");
  CHECK(tile_blocks(kBigTile) == "Qᵢ, Kⱼ, Vⱼ, Oᵢ, dOᵢ, dQᵢ, dKⱼ, dVⱼ");
  // Br = Bc = d = 4, M = 64: eight 4 × 4 blocks are 128 > 64, where the forward's four fit.
  const long long blocks = 4 * 4 * 4 + 4 * 4 * 4, scores = 4 * 4 * 4;
  const TileFitLine over = tile_fit_line(kBigTile, 4, 4, 4, 64);
  CHECK(over.problem);
  CHECK(over.text() == "Qᵢ, Kⱼ, Vⱼ, Oᵢ, dOᵢ, dQᵢ, dKⱼ, dVⱼ: " + std::to_string(blocks) + " > M = 64:; these blocks do not fit");
  CHECK_FALSE(tile_fit_line(kForwardTile, 4, 4, 4, 64).problem);
  // M = 256: the blocks and the four score tiles fit.
  const TileFitLine fits = tile_fit_line(kBigTile, 4, 4, 4, 256);
  CHECK_FALSE(fits.problem);
  CHECK(fits.text() == "tile " + std::to_string(blocks + scores) + " ≤ M = 256:; Qᵢ, Kⱼ, Vⱼ, Oᵢ, dOᵢ, dQᵢ, dKⱼ, dVⱼ and Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ fit");
  // M = 160: the blocks fit, the score tiles go over.
  const TileFitLine between = tile_fit_line(kBigTile, 4, 4, 4, 160);
  CHECK(between.text() == "Qᵢ, Kⱼ, Vⱼ, Oᵢ, dOᵢ, dQᵢ, dKⱼ, dVⱼ: 128 ≤ M = 160; Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ adds 64: tile 192");
  // The help's sum counts the tile's own blocks.
  const std::string help = tile_rule_help(kBigTile);
  CHECK(has(help, "4·Bc·d + 4·Br·d + 4·Br·Bc elements"));
  CHECK(has(help, "Kⱼ, Vⱼ, dKⱼ and dVⱼ (Bc×d each)"));
  CHECK(has(tile_rule_help(kForwardTile), "Kⱼ and Vⱼ (Bc×d each), Qᵢ and Oᵢ (Br×d each) and the scores Sᵢⱼ (Br×Bc): 2·Bc·d + 2·Br·d + Br·Bc elements"));
}

TEST_CASE("explain: the N, d and seed fields name the row's inputs of N rows") {
  const AlgorithmInfo& tiled = info(Algorithm::attn_tiled);
  CHECK(takes_extent(tiled, Extent::N));
  CHECK(takes_extent(tiled, Extent::d));
  CHECK_FALSE(takes_extent(info(Algorithm::online), Extent::N));
  CHECK(n_field_help(tiled) == "Sequence length: Q, K and V are N×d, S and P are N×N.");
  CHECK(d_field_help(tiled) == "Head dimension: the length of each q, k, v.");
  CHECK(seed_field_help(tiled) == "Q, K and V are standard-normal random numbers from this seed.");
  // A row that also takes the upstream gradient dO, N × d.
  static const InputSpec dO{"dO", "dO", Extent::N, Extent::d, &Scenario::q, &Resolved::q};
  AlgorithmInfo backward = tiled;
  backward.inputs.push_back(&dO);
  CHECK(inputs_over(backward, Extent::N) == "Q, K, V and dO");
  CHECK(n_field_help(backward) == "Sequence length: Q, K, V and dO are N×d, S and P are N×N.");
  CHECK(d_field_help(backward) == "Head dimension: the length of each q, k, v and of each row of dO.");
  CHECK(seed_field_help(backward) == "Q, K, V and dO are standard-normal random numbers from this seed.");
}
