// Every sentence the window, the labs, the tooltips and the command line write, as it stands in
// the source of app/, core/ and gpu/: its string literals (adjacent ones joined, as the compiler joins them) are read
// from the files and checked for the ASCII stand-ins of the notation (tests/notation.h), so a
// new "S_ij" or "e^x" in a tooltip fails here before anyone sees it. What the recordings and
// lessons say is checked from the numbers elsewhere (test_narration, test_notation).
#include "tests/notation.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Literal {
  std::string text;  // the characters between the quotes, escapes kept as written
  int line = 0;
};

// The string literals of a C++ source, adjacent ones joined; comments and character literals
// skipped; raw strings taken whole.
std::vector<Literal> literals(const std::string& src) {
  std::vector<Literal> out;
  bool joinable = false;  // only blanks since the last literal ended
  int line = 1;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\n') ++line;
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
      ++line;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      i += 2;
      while (i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/')) line += src[i++] == '\n';
      ++i;
      continue;
    }
    if (c == '\'') {  // '"', '\''
      ++i;
      while (i < src.size() && src[i] != '\'') i += src[i] == '\\' ? 2 : 1;
      joinable = false;
      continue;
    }
    if (c == '"') {
      std::string text;
      const int at = line;
      if (i > 0 && src[i - 1] == 'R') {  // R"delim( … )delim"
        const std::size_t open = src.find('(', i);
        const std::string end = ")" + src.substr(i + 1, open - i - 1) + "\"";
        const std::size_t close = src.find(end, open);
        text = src.substr(open + 1, close - open - 1);
        for (char t : text) line += t == '\n';
        i = close + end.size() - 1;
      } else {
        for (++i; i < src.size() && src[i] != '"'; ++i) {
          if (src[i] == '\\') text += src[i++];
          text += src[i];
        }
      }
      if (joinable && !out.empty())
        out.back().text += text;
      else
        out.push_back({text, at});
      joinable = true;
      continue;
    }
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') joinable = false;
  }
  return out;
}

// What of a literal is not words on screen: printf conversions, escaped quotes around a
// key or value named in a message, file names, ImGui ids after "##", escapes.
std::string words_of(std::string t) {
  static const std::regex kNotWords[] = {
      std::regex(R"(\b[A-Za-z][A-Za-z0-9]+(_[A-Za-z0-9]+)+\b)"),  // time_ms, chosen_by: keys
      std::regex(R"(0x%0?\d*x)"),  // a GL error code
      std::regex(R"(%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(ll|l|z)?[dfgsuxceE%])"),
      std::regex(R"(\\"[^"\\]*\\")"),
      std::regex(R"([A-Za-z0-9_./-]+\.(h|cpp|json|comp|png|gif|txt)\b)"),
      std::regex(R"(##.*)"),
      std::regex(R"(\\[ntr])"),
  };
  for (const std::regex& re : kNotWords) t = std::regex_replace(t, re, "1");
  return t;
}

}  // namespace

TEST_CASE("screen text: no literal in app/, core/ or gpu/ writes the notation in ASCII") {
  // Literals that are not notation but what a user types, quoted as typed.
  const std::set<std::string> typed = {
      "[10, 0, -5]",  // the Inputs panel's preset: the text put in the field
  };
  // Sentences about the input syntax itself: "inf" and "-inf" are what the parser accepts, and
  // a refused hexadecimal number is quoted as typed.
  const std::regex about_syntax(R"(inf, -inf, nan|type inf if|hexadecimal number)");
  // Files whose literals are machine-readable lines, not sentences: --bench-frames's log.
  const std::set<std::string> machine = {"frame_stats.cpp"};

  int seen = 0;
  std::vector<std::string> bad;
  std::vector<fs::directory_entry> files;
  for (const char* dir : {"/app", "/core", "/gpu"})
    for (const auto& e : fs::recursive_directory_iterator(std::string(FLASHSTEP_SOURCE_DIR) + dir)) files.push_back(e);
  for (const auto& e : files) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    if (machine.count(e.path().filename().string())) continue;
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    for (const Literal& l : literals(ss.str())) {
      const std::string w = words_of(l.text);
      if (w.find(' ') == std::string::npos) continue;  // an id, a key, one word
      ++seen;
      if (typed.count(l.text) || std::regex_search(l.text, about_syntax)) continue;
      const std::string form = notation::ascii_form(w);
      if (!form.empty())
        bad.push_back(fs::relative(e.path(), FLASHSTEP_SOURCE_DIR).string() + ":" + std::to_string(l.line) + ": \"" +
                      form + "\" in \"" + l.text.substr(0, 90) + "\"");
    }
  }
  CHECK(seen > 500);  // the sentences were found at all
  for (const std::string& b : bad) MESSAGE(b);
  CHECK(bad.empty());
}

TEST_CASE("screen text: the literal reader joins, skips comments and finds what it must reject") {
  const auto lits = literals("// \"S_ij\" in a comment\nf(\"the tile \"\n  \"S_ij\", 'x', '\"');\n/* \"e^x\" */ g(\"e^x here\");");
  REQUIRE(lits.size() == 2);
  CHECK(lits[0].text == "the tile S_ij");
  CHECK(lits[0].line == 2);
  CHECK(notation::ascii_form(words_of(lits[0].text)) == "S_i");
  CHECK(notation::ascii_form(words_of(lits[1].text)) == "e^x");
  CHECK(notation::ascii_form(words_of("Br = %d, Bc = %.*g \\\"block_rows\\\" in core/io_model.h")).empty());
}
