// The markup of the pseudocode and the step sentences (core/markup.h), and the notation of the
// papers in every algorithm's pseudocode.
#include "core/algorithms.h"
#include "core/markup.h"

#include <doctest/doctest.h>

#include <string>

using namespace flashstep;

TEST_CASE("markup: subscripts, superscripts and tildes become runs, and plain text") {
  const auto runs = parse_markup("\\~m_{ij} = e^{m₀ − m₁}");
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].kind == RunKind::tilde);
  CHECK(runs[0].text == "m");
  CHECK(runs[1].kind == RunKind::sub);
  CHECK(runs[1].text == "ij");
  CHECK(runs[2].kind == RunKind::normal);
  CHECK(runs[2].text == " = e");
  CHECK(runs[3].kind == RunKind::sup);
  CHECK(runs[3].text == "m₀ − m₁");
  CHECK(plain_text("x_{i−1}") == "xᵢ₋₁");
  CHECK(plain_text("diag(l)^{−1}") == "diag(l)⁻¹");
  CHECK(plain_text("B_{c}") == "B_(c)");  // no Unicode subscript c
  CHECK(plain_text("e^{3 − 5}") == "e^(3 − 5)");
  CHECK(plain_text("\\~P") == "P\u0303");
  // Text that only looks like markup stays as it is.
  CHECK(plain_text("a_{b") == "a_{b");
  CHECK(plain_text("x_i") == "x_i");
}

TEST_CASE("pseudocode reads like the papers: arrows, ≤, −∞, subscripts and accents, no ASCII stand-ins") {
  for (const AlgorithmInfo& a : algorithm_table()) {
    for (const std::string& line : a.pseudocode) {
      CAPTURE(a.id);
      CAPTURE(line);
      const std::string code = line.substr(0, line.find('#'));
      for (const char* ascii : {"<-", "<=", ">=", "-inf", "~_", "^T", " * ", "_("}) {
        CAPTURE(ascii);
        CHECK(code.find(ascii) == std::string::npos);
      }
      // Every subscript is marked up, so it is drawn lowered: no bare "x_i".
      for (std::size_t k = code.find('_'); k != std::string::npos; k = code.find('_', k + 1))
        CHECK((k + 1 < code.size() && code[k + 1] == '{'));
    }
  }
}

TEST_CASE("markup: scripts nest, as in 2^{(x_{i} − m)·log₂e}") {
  const auto runs = parse_markup("2^{(x_{i} − m)·log₂e} + y_{j^{2}}");
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].kind == RunKind::normal);
  CHECK(runs[0].text == "2");
  CHECK(runs[1].kind == RunKind::sup);
  CHECK(runs[1].text == "(x_{i} − m)·log₂e");
  const auto& sup = runs[1].children;
  REQUIRE(sup.size() == 3);
  CHECK(sup[0].kind == RunKind::normal);
  CHECK(sup[0].text == "(x");
  CHECK(sup[1].kind == RunKind::sub);
  CHECK(sup[1].text == "i");
  CHECK(sup[2].kind == RunKind::normal);
  CHECK(sup[2].text == " − m)·log₂e");
  CHECK(runs[2].kind == RunKind::normal);
  CHECK(runs[2].text == " + y");
  CHECK(runs[3].kind == RunKind::sub);
  REQUIRE(runs[3].children.size() == 2);
  CHECK(runs[3].children[0].text == "j");
  CHECK(runs[3].children[1].kind == RunKind::sup);
  CHECK(runs[3].children[1].text == "2");
  // A script without markup inside is one normal run.
  const auto flat = parse_markup("e^{m₀ − m₁}");
  REQUIRE(flat.size() == 2);
  REQUIRE(flat[1].children.size() == 1);
  CHECK(flat[1].children[0].kind == RunKind::normal);
  CHECK(flat[1].children[0].text == "m₀ − m₁");
  CHECK(plain_text("2^{(x_{i} − m)·log₂e}") == "2^((xᵢ − m)·log₂e)");
  CHECK(plain_text("y_{j^{2}}") == "y_(j²)");
  // Braces that never close stay text, nested or not.
  CHECK(plain_text("a^{b_{c}") == "a^{b_(c)");
}
