// The step sentences state equations with their numbers: each equation a sentence prints must
// hold, recomputed here from the inputs, and no sentence may show an undefined expression
// (e^{−∞ − (−∞)}, −∞ + ∞) as if it had a value.
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/markup.h"
#include "core/text.h"
#include "tests/notation.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace flashstep;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A number as the sentences print it: "−0.55798", "1.5×10⁻⁵", "∞", "−∞".
double parse_printed(std::string t) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t k; (k = t.find(from)) != std::string::npos;) t.replace(k, from.size(), to);
  };
  replace_all("−", "-");
  replace_all("∞", "inf");
  replace_all("×10", "e");
  const char* const kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  for (int k = 0; k < 10; ++k) replace_all(kSup[k], std::string(1, static_cast<char>('0' + k)));
  replace_all("⁻", "-");
  std::size_t used = 0;
  const double v = std::stod(t, &used);
  REQUIRE_MESSAGE(used == t.size(), "not a printed number: " << t);
  return v;
}

// The numbers of a list "[a, b, c]" (a trailing ", …" dropped).
std::vector<double> parse_list(const std::string& text, std::size_t open) {
  std::vector<double> out;
  const std::size_t close = text.find(']', open);
  REQUIRE(close != std::string::npos);
  std::string body = text.substr(open + 1, close - open - 1);
  for (std::size_t k = 0; k <= body.size();) {
    std::size_t comma = body.find(", ", k);
    if (comma == std::string::npos) comma = body.size();
    const std::string item = body.substr(k, comma - k);
    if (item != "…") out.push_back(parse_printed(item));
    k = comma + 2;
  }
  return out;
}

Scenario attention(Algorithm a, ScaleMode mode, double value = 1.0) {
  Scenario s;
  s.algorithm = a;
  s.n = 6;
  s.d = 3;
  s.seed = 11;
  s.scale_mode = mode;
  s.scale_value = value;
  s.block_rows = 2;
  s.block_cols = 3;
  return s;
}

// The exact score q_i · k_j · scale and the bound on its rounding plus the printing.
void check_score(const Resolved& r, int i, int j, double printed) {
  long double dot = 0, sigma = 0;
  for (int c = 0; c < r.d; ++c) {
    dot += static_cast<long double>(r.q(i, c)) * r.k(j, c);
    sigma += std::fabs(static_cast<long double>(r.q(i, c)) * r.k(j, c));
  }
  const double want = static_cast<double>(dot * r.scale);
  const double err = tolerance::score_error(r.scenario.precision, r.d, std::fabs(r.scale) * static_cast<double>(sigma)) +
                     tolerance::printed_error(want);
  CAPTURE(i);
  CAPTURE(j);
  CHECK(std::fabs(printed - want) <= err);
}

std::string plain(const std::string& s) { return plain_text(s); }

}  // namespace

TEST_CASE("every printed score is q·k·s with the scale included: attn-online and the FA-1 and FA-2 tiles") {
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return takes_qkv(row.algorithm) && row.rescales; })) {
    for (const auto& case_ : {std::pair{ScaleMode::inv_sqrt_d, 1.0}, std::pair{ScaleMode::value, 0.25},
                              std::pair{ScaleMode::none, 1.0}}) {
      const auto [mode, value] = case_;
      const double scale_value = value;  // a named copy: clang 14 cannot capture a structured binding
      CAPTURE(algorithm_id(a));
      CAPTURE(scale_value);
      const Resolved r = resolve(attention(a, mode, value));
      REQUIRE((mode == ScaleMode::none) == (r.scale == 1.0));
      const Recording rec = record(r);
      int checked = 0, key = 0, row = -1;
      for (const Step& st : rec.steps) {
        if (a == Algorithm::attn_online) {
          if (st.line != 4) continue;
          // "S₁₂ = q₁ · k₂ · 0.57735 = 0.1234;  m = …": keys come in order within a row.
          key = st.row == row ? key + 1 : 0;
          row = st.row;
          const std::string t = plain(st.text);
          const std::string eq = t.substr(0, t.find(';'));
          const std::size_t first = eq.find(" = "), last = eq.rfind(" = ");
          REQUIRE(first < last);
          const std::string product = eq.substr(first + 3, last - first - 3);  // "q₁ · k₂ · 0.57735"
          const std::size_t dot = product.rfind(" · ");
          REQUIRE(dot != std::string::npos);
          const bool has_scale = product.find(" · ") != dot;
          CHECK(has_scale == (r.scale != 1.0));
          if (has_scale) {
            const double printed_scale = parse_printed(product.substr(dot + 4));
            CHECK(std::fabs(printed_scale - r.scale) <= tolerance::printed_error(r.scale));
          }
          check_score(r, row, key, parse_printed(eq.substr(last + 3)));
          ++checked;
        } else {
          if (st.tile_j < 0) continue;  // FA-2's last step of a Q block: no scores
          REQUIRE(st.parts.size() == 3);
          // Part 1 lists row 1 of the tile's S: "… Row r: [S_r1, S_r2, …]".
          const std::string t = plain(st.parts[0].text);
          const std::size_t row_at = t.rfind("Row ");
          REQUIRE(row_at != std::string::npos);
          const std::vector<double> got = parse_list(t, t.find('[', row_at));
          const int i = st.tile_i * r.Br, c0 = st.tile_j * r.Bc;
          for (std::size_t k = 0; k < got.size(); ++k) check_score(r, i, c0 + static_cast<int>(k), got[k]);
          // The part and the step's summary name the scale they multiplied by: "K₁ᵀ · 0.57735 is".
          for (const std::string& text : {t, plain(st.text)}) {
            CAPTURE(text);
            const std::size_t kt = text.find("ᵀ");
            REQUIRE(kt != std::string::npos);
            const std::size_t is = text.find(" is ", kt);
            const std::string after = text.substr(kt + std::string("ᵀ").size(), is - kt - std::string("ᵀ").size());
            if (r.scale == 1.0) {
              CHECK(after.empty());
            } else {
              REQUIRE(after.rfind(" · ", 0) == 0);
              CHECK(std::fabs(parse_printed(after.substr(4)) - r.scale) <= tolerance::printed_error(r.scale));
            }
          }
          ++checked;
        }
      }
      CHECK(checked > 0);
    }
  }
}

namespace {

// Inputs with rows whose every score overflows to −∞ (the Inputs panel's presets "a score
// overflows to −∞" and "a row with no finite score", written out here), for each format.
Scenario no_finite_score(Algorithm a, Precision p, bool whole_row) {
  const double b = p == Precision::fp64 ? 1e200 : p == Precision::fp16 ? 300 : 1e30;
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.q = {{b, whole_row ? 0.0 : 1.0}, {0, 1}, {0, -1}, {0, 2}};
  s.k = whole_row ? std::vector<std::vector<double>>{{-b, 0}, {-b, 1}, {-b, -1}, {-b, 0.5}}
                  : std::vector<std::vector<double>>{{-b, 0}, {0, 1}, {0, -1}, {0, 0.5}};
  s.v = {{1, 0}, {0, 1}, {1, 1}, {-1, 2}};
  s.block_rows = 2;
  s.block_cols = 2;
  return s;
}

// An undefined expression shown as if it had a value: the sentence must say it is undefined
// (or refused) wherever it writes one.
void check_no_undefined_shown(const std::string& sentence) {
  const std::string t = plain(sentence);
  CAPTURE(t);
  for (const char* bad : {"−∞ − −∞", "−∞ − (−∞)", "−∞ + ∞", "∞ − ∞", "∞ + −∞"})
    if (t.find(bad) != std::string::npos)
      CHECK((t.find("undefined") != std::string::npos || t.find("refused") != std::string::npos));
}

}  // namespace

TEST_CASE("no sentence shows e^(−∞ − −∞) or −∞ + ∞ as a value: every algorithm on rows with no finite value") {
  for (Algorithm a : kAllAlgorithms) {
    for (Precision p : {Precision::fp32, Precision::fp16, Precision::fp64}) {
      std::vector<Scenario> cases;
      if (takes_qkv(a)) {
        cases = {no_finite_score(a, p, true), no_finite_score(a, p, false)};
        Scenario causal = no_finite_score(a, p, true);
        causal.causal = true;
        cases.push_back(causal);
      } else {
        Scenario s;
        s.algorithm = a;
        s.precision = p;
        s.chunks = 2;
        s.x = {{-kInf, 1, 2, 0}, {-kInf, -kInf, -kInf, -kInf}, {1, -kInf, -kInf, 3}};
        cases.push_back(s);
      }
      for (const Scenario& s : cases) {
        CAPTURE(algorithm_id(a));
        CAPTURE(precision_name(p));
        const Recording rec = record(s);
        REQUIRE(!rec.steps.empty());
        for (const Step& st : rec.steps) {
          check_no_undefined_shown(st.text);
          for (const StepPart& part : st.parts) check_no_undefined_shown(part.text);
        }
      }
    }
  }
}

TEST_CASE("a row with no finite score: the tiled sentences name the guard and FA-2 says what L stores") {
  for (Algorithm a : rows::where([](const AlgorithmInfo& row) { return takes_qkv(row.algorithm) && row.rescales; })) {
    CAPTURE(algorithm_id(a));
    const Recording rec = record(no_finite_score(a, Precision::fp32, true));
    bool guard = false, lse = false;
    for (const Step& st : rec.steps) {
      std::string all = st.text;
      for (const StepPart& part : st.parts) all += "\n" + part.text;
      if (st.row == 0 || st.tile_i == 0) guard = guard || all.find("m = −∞ → use 0") != std::string::npos;
      lse = lse || all.find("stores +∞") != std::string::npos;
    }
    CHECK(guard);
    if (a == Algorithm::attn_tiled_v2) CHECK(lse);
  }
}

TEST_CASE("online softmax on −∞ 1 2: l₁ is written with the guard and not against m₁ = −∞") {
  Scenario s;
  s.algorithm = Algorithm::online;
  s.x = {{-kInf, 1, 2}};
  const Recording rec = record(s);
  REQUIRE(!rec.steps.empty());
  const std::string first = rec.steps[0].text;  // in markup, as the window lays it out
  CAPTURE(first);
  CHECK(first.find("e^{x₁ − m₁}") == std::string::npos);
  CHECK(first.find("e^{x₁ − 0}") != std::string::npos);
  CHECK(first.find("m = −∞ → use 0") != std::string::npos);
}

namespace {

void check_notation(const std::string& where, const std::string& text) {
  const std::string bad = notation::ascii_form(text);
  CAPTURE(where);
  CAPTURE(text);
  CHECK_MESSAGE(bad.empty(), "ASCII form: " << bad);
}

void check_recording(const std::string& where, const Recording& rec) {
  for (const std::string& p : rec.pass_names) check_notation(where + " pass name", p);
  for (const BufferInfo& b : rec.buffers) check_notation(where + " buffer " + b.name, b.description);
  for (const std::string& n : rec.notices) check_notation(where + " notice", n);
  for (const Step& st : rec.steps) {
    check_notation(where + " label", st.label);
    check_notation(where + " sentence", st.text);
    for (const StepPart& part : st.parts) check_notation(where + " part", part.text);
  }
}

}  // namespace

TEST_CASE("what the lessons say is in the papers' notation, not its ASCII stand-ins") {
  for (Algorithm a : kAllAlgorithms) {
    CAPTURE(algorithm_id(a));
    for (const std::string& line : info(a).pseudocode) check_notation("pseudocode", line);
  }
  for (const Lesson& l : lessons()) {
    check_notation(l.id + " title", l.title);
    check_notation(l.id + " summary", l.summary);
    Scenario s = l.scenario;
    s.n = std::min(s.n, 24);  // the words, not the size, are under test
    s.q.clear(), s.k.clear(), s.v.clear();
    if (s.x.empty()) s.rows = std::min(s.rows, 2);
    const Resolved r = resolve(s);
    for (const std::string& n : r.notices) check_notation(l.id + " notice", n);
    for (const std::string& n : r.derived) check_notation(l.id + " derived", n);
    check_recording(l.id, record(r));
  }
  // Every algorithm where its sentences meet overflow, −∞, a scale and a mask.
  for (Algorithm a : kAllAlgorithms) {
    for (Precision p : {Precision::fp16, Precision::fp32}) {
      Scenario s;
      s.algorithm = a;
      s.precision = p;
      s.scale_mode = ScaleMode::value;
      s.scale_value = 0.5;
      s.chunks = 2;
      if (takes_qkv(a)) {
        s = no_finite_score(a, p, false);
        s.causal = true;
      } else {
        s.x = {{3, 2, 5, 24}, {-kInf, 1, 2, 1e-5}, {-kInf, -kInf, -kInf, -kInf}};
      }
      check_recording(std::string(algorithm_id(a)) + " " + std::string(precision_name(p)), record(s));
    }
  }
}

TEST_CASE("one name per thing: the score is S_ij and the scale s, and the accumulator is O_i^(j) in every sentence") {
  // The pseudocode of attn-online names the score and the scale as FlashAttention's does.
  const auto& online = info(Algorithm::attn_online).pseudocode;
  const auto& fa2 = info(Algorithm::attn_tiled_v2).pseudocode;
  auto any_line = [](const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& l : lines)
      if (l.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(any_line(online, "S_{ij} ← (q_{i} · k_{j}) · s"));
  CHECK_FALSE(any_line(online, "scale"));
  CHECK(any_line(online, "O_{i}^{(j)}"));
  CHECK(any_line(fa2, "O_{i}^{(j)}"));
  for (Algorithm a : {Algorithm::attn_online, Algorithm::attn_tiled_v2}) {
    CAPTURE(algorithm_id(a));
    const Recording rec = record(attention(a, ScaleMode::inv_sqrt_d));
    bool named = false;
    for (const Step& st : rec.steps) {
      std::string all = st.text;
      for (const StepPart& part : st.parts) all += "\n" + part.text;
      CAPTURE(all);
      for (const char* old : {"O_acc", "o +=", " o /", "s = q", "O_i rescaled", "o and l"})
        CHECK(all.find(old) == std::string::npos);
      named = named || all.find("^{(") != std::string::npos;
    }
    CHECK(named);
  }
}

TEST_CASE("FlashAttention-2's last step of a Q block names block i's accumulator, not a row's, on both sides") {
  const Recording rec = record(attention(Algorithm::attn_tiled_v2, ScaleMode::inv_sqrt_d));
  int done = 0;
  for (const Step& st : rec.steps) {
    if (st.tile_j >= 0) continue;  // a tile step
    CAPTURE(st.text);
    const int i = st.tile_i + 1;
    CHECK(st.text.find("O" + sub(i) + " = diag(l)^{−1} O_{" + std::to_string(i) + "}^{(") != std::string::npos);
    ++done;
  }
  CHECK(done > 1);
}

TEST_CASE("log-sum-exp's differences subtract as printed: x − LSE = log y with the digits shown, x near 1000") {
  // [1000, 1001, 1002, 999]: LSE = 1002.44019…, log y₁ = −2.44019…. Printed at 5 significant
  // digits, "1000 − 1002.4 = −2.4402" does not subtract; the operands carry the result's places.
  // Each "a − b = c" of a log y step and "m + log l = c" of the LSE step, parsed from the
  // sentence: a − b (or m + ln l) within the printing of each number of c.
  for (const Precision p : {Precision::fp64, Precision::fp32}) {
    CAPTURE(precision_name(p));
    Scenario s;
    s.algorithm = Algorithm::logsumexp;
    s.precision = p;
    s.x = {{1000, 1001, 1002, 999}, {3, 2, 5, 1}};
    const Recording rec = record(s);
    int differences = 0, sums = 0;
    for (const Step& st : rec.steps) {
      const std::string t = plain(st.text);
      CAPTURE(t);
      const std::string diff = "− LSE = ", sum = "LSE = m + log l = ";
      if (const std::size_t at = t.find(diff); at != std::string::npos) {
        const std::string rest = t.substr(at + diff.size());  // "1000 − 1002.4402 = −2.4402"
        const std::size_t minus = rest.find(" − "), eq = rest.find(" = ");
        REQUIRE(minus < eq);
        const double a = parse_printed(rest.substr(0, minus));
        const double b = parse_printed(rest.substr(minus + 5, eq - minus - 5));
        const double c = parse_printed(rest.substr(eq + 3));
        // a and b to c's last place, c to its own: half a unit of that place each.
        CHECK(std::fabs((a - b) - c) <= 3 * tolerance::printed_error(c));
        ++differences;
      }
      if (const std::size_t at = t.find(sum); at != std::string::npos) {
        const std::string rest = t.substr(at + sum.size());  // "1002 + log 1.553 = 1002.44019"
        const std::size_t plus = rest.find(" + log "), eq = rest.find(" = ");
        REQUIRE(plus < eq);
        const double m = parse_printed(rest.substr(0, plus));
        const double l = parse_printed(rest.substr(plus + 7, eq - plus - 7));
        const double c = parse_printed(rest.substr(eq + 3));
        // m and c to log l's last place, half a unit of it each; log l read from an l printed to 5
        // digits, off by that l's printing, relative.
        const double place = std::log(l) == 0 ? 0 : tolerance::printed_error(std::log(l));
        CHECK(std::fabs(m + std::log(l) - c) <= 2 * place + tolerance::printed_error(l) / l + 1e-12);
        ++sums;
      }
    }
    CHECK(differences == 8);
    CHECK(sums == 2);
  }
}
