#include "core/markup.h"

#include <cstring>
#include <utility>

namespace flashstep {

namespace {

// The length of the UTF-8 character that starts at s[i].
std::size_t char_len(std::string_view s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
  return std::min(n, s.size() - i);
}

// Unicode sub- and superscript forms of the characters that have one.
const std::pair<const char*, const char*> kSub[] = {
    {"0", "₀"}, {"1", "₁"}, {"2", "₂"}, {"3", "₃"}, {"4", "₄"}, {"5", "₅"}, {"6", "₆"}, {"7", "₇"},
    {"8", "₈"}, {"9", "₉"}, {"+", "₊"}, {"−", "₋"}, {"-", "₋"}, {"=", "₌"}, {"(", "₍"}, {")", "₎"},
    {"a", "ₐ"}, {"e", "ₑ"}, {"h", "ₕ"}, {"i", "ᵢ"}, {"j", "ⱼ"}, {"k", "ₖ"}, {"l", "ₗ"}, {"m", "ₘ"},
    {"n", "ₙ"}, {"o", "ₒ"}, {"p", "ₚ"}, {"r", "ᵣ"}, {"s", "ₛ"}, {"t", "ₜ"}, {"u", "ᵤ"}, {"v", "ᵥ"},
    {"x", "ₓ"}, {",", ","}};  // no subscript comma exists: "S_{10,3}" keeps its comma on the line
const std::pair<const char*, const char*> kSup[] = {
    {"0", "⁰"}, {"1", "¹"}, {"2", "²"}, {"3", "³"}, {"4", "⁴"}, {"5", "⁵"}, {"6", "⁶"}, {"7", "⁷"},
    {"8", "⁸"}, {"9", "⁹"}, {"+", "⁺"}, {"−", "⁻"}, {"-", "⁻"}, {"=", "⁼"}, {"(", "⁽"}, {")", "⁾"},
    {"n", "ⁿ"}, {"i", "ⁱ"}, {"j", "ʲ"}, {"T", "ᵀ"}};

// `text` in the script's Unicode forms, or false when a character has none.
template <std::size_t N>
bool scripted(std::string_view text, const std::pair<const char*, const char*> (&table)[N], std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = char_len(text, i);
    const std::string_view ch = text.substr(i, n);
    bool found = false;
    for (const auto& [from, to] : table)
      if (ch == from) {
        out += to;
        found = true;
        break;
      }
    if (!found) return false;
    i += n;
  }
  return true;
}

// The "}" that closes the "{" at s[open], counting the braces between; npos when none does.
std::size_t matching_brace(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < s.size(); ++k) {
    if (s[k] == '{') ++depth;
    else if (s[k] == '}' && --depth == 0) return k;
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<TextRun> parse_markup(std::string_view text) {
  std::vector<TextRun> runs;
  auto add = [&](RunKind k, std::string_view t) {
    if (t.empty()) return;
    if (k == RunKind::normal && !runs.empty() && runs.back().kind == RunKind::normal) runs.back().text += t;
    else runs.push_back({k, std::string(t), {}});
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if ((text[i] == '_' || text[i] == '^') && i + 1 < text.size() && text[i + 1] == '{') {
      const std::size_t close = matching_brace(text, i + 1);
      if (close != std::string_view::npos) {
        const std::string_view inner = text.substr(i + 2, close - i - 2);
        add(text[i] == '_' ? RunKind::sub : RunKind::sup, inner);
        if (!inner.empty()) runs.back().children = parse_markup(inner);
        i = close + 1;
        continue;
      }
    }
    if (text[i] == '\\' && i + 2 < text.size() && text[i + 1] == '~') {
      const std::size_t n = char_len(text, i + 2);
      add(RunKind::tilde, text.substr(i + 2, n));
      i += 2 + n;
      continue;
    }
    const std::size_t n = char_len(text, i);
    add(RunKind::normal, text.substr(i, n));
    i += n;
  }
  return runs;
}

std::string plain_text(std::string_view text) {
  std::string out, forms;
  for (const TextRun& r : parse_markup(text)) {
    switch (r.kind) {
      case RunKind::normal: out += r.text; break;
      case RunKind::sub: out += scripted(r.text, kSub, forms) ? forms : "_(" + plain_text(r.text) + ")"; break;
      case RunKind::sup: out += scripted(r.text, kSup, forms) ? forms : "^(" + plain_text(r.text) + ")"; break;
      case RunKind::tilde: out += r.text + "\u0303"; break;
    }
  }
  return out;
}

}  // namespace flashstep
