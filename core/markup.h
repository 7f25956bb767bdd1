// The small markup of the pseudocode and the step sentences, so that they read like the papers'
// Algorithm 1 and 2: x_{i−1} is a subscript, e^{m₀−m₁} a superscript, \~m a letter with a tilde
// over it (m̃). The window lays these out (app/ui/widgets.h: text_rich); plain text (JSON,
// terminals) gets plain_text().
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

enum class RunKind { normal, sub, sup, tilde };
struct TextRun {
  RunKind kind = RunKind::normal;
  std::string text;  // for tilde: the one letter under the accent; for sub and sup: what the braces hold
  // For sub and sup: `text` parsed in turn, so that scripts nest: 2^{(x_{i} − m)·log₂e} is a
  // superscript holding "(x", a subscript "i" and " − m)·log₂e".
  std::vector<TextRun> children;
};

// Splits marked-up text into runs; a script's braces hold markup of their own, matched by
// depth. An unclosed "_{" or "^{" is taken as normal text.
std::vector<TextRun> parse_markup(std::string_view text);

// The same text without markup: subscripts and superscripts in Unicode where every character
// has a Unicode form ("x_{i}" → "xᵢ", "e^{−1}" → "e⁻¹"), else written "_(…)" and "^(…)" around
// their own plain text ("2^{x_{i}·3}" → "2^(xᵢ·3)"); a tilde as the combining tilde ("\~m" → "m̃").
std::string plain_text(std::string_view text);

}  // namespace flashstep
