// The steps behind a cell, and the "Go to…" box's words (core/navigate.h).
#include "core/navigate.h"

#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <vector>

namespace flashstep {

namespace {

bool contains(const std::vector<Region>& regions, int buffer, int r, int c) {
  for (const Region& g : regions)
    if (g.buffer == buffer && r >= g.r0 && r < g.r1 && c >= g.c0 && c < g.c1) return true;
  return false;
}

}  // namespace

int last_writer(const Recording& rec, int buffer, int r, int c, int upto) {
  const int n = rec.step_count();
  for (int k = std::min(upto, n - 1); k >= 0; --k)
    if (contains(rec.steps[static_cast<std::size_t>(k)].writes, buffer, r, c)) return k;
  for (int k = std::max(upto + 1, 0); k < n; ++k)
    if (contains(rec.steps[static_cast<std::size_t>(k)].writes, buffer, r, c)) return k;
  return -1;
}

int first_reader(const Recording& rec, int buffer, int r, int c) {
  for (int k = 0; k < rec.step_count(); ++k)
    if (contains(rec.steps[static_cast<std::size_t>(k)].reads, buffer, r, c)) return k;
  return -1;
}

// ---- Go to… ----------------------------------------------------------------------------------

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Whole numbers separated by spaces, commas or parentheses ("(1, 2)", "1 2", "12"); nullopt
// when anything else is there. A number too large for an int is kept as INT_MAX: out of range.
std::optional<std::vector<int>> numbers(std::string_view s) {
  std::vector<int> out;
  std::size_t k = 0;
  while (k < s.size()) {
    const char ch = s[k];
    if (ch == ' ' || ch == ',' || ch == '(' || ch == ')' || ch == '\t') {
      ++k;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    long long v = 0;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
      v = std::min<long long>(v * 10 + (s[k] - '0'), INT_MAX);
      ++k;
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

bool starts_with_word(const std::string& s, std::string_view word, std::string_view& rest, std::string_view whole) {
  if (s.compare(0, word.size(), word) != 0) return false;
  if (s.size() > word.size() && std::isalpha(static_cast<unsigned char>(s[word.size()]))) return false;
  rest = trim(whole.substr(word.size()));
  return true;
}

constexpr const char* kTry = "try 12, pass 2, row 3 or tile (1, 2)";

GoTo fail(std::string message) {
  GoTo g;
  g.error = std::move(message);
  return g;
}

GoTo found(int step, std::string what) {
  GoTo g;
  g.step = step;
  g.what = std::move(what);
  return g;
}

GoTo go_to_step(const Recording& rec, int k) {
  if (rec.step_count() == 0) return fail("this recording has no steps");
  if (k < 1 || k > rec.step_count())
    return fail(strf("no step %d: steps run 1..%d", k, rec.step_count()));
  return found(k - 1, strf("step %d", k));
}

GoTo go_to_pass(const Recording& rec, int p) {
  const int passes = rec.pass_count();
  if (p < 1 || p > passes)
    return fail(strf("no pass %d: this recording has %d", p, passes));
  for (int k = 0; k < rec.step_count(); ++k)
    if (rec.steps[static_cast<std::size_t>(k)].pass == p)
      return found(k, strf("pass %d (%s)", p, rec.pass_names[static_cast<std::size_t>(p - 1)].c_str()));
  return fail(strf("pass %d (%s) has no steps in this recording", p,
                   rec.pass_names[static_cast<std::size_t>(p - 1)].c_str()));
}

GoTo go_to_row(const Recording& rec, int r) {
  int rows = 0;
  for (const Step& st : rec.steps) rows = std::max(rows, st.row + 1);
  if (rows == 0) return fail("the steps of this recording are not by row: go to a step or a pass");
  if (r < 1 || r > rows) return fail(strf("no row %d: rows run 1..%d", r, rows));
  for (int k = 0; k < rec.step_count(); ++k)
    if (rec.steps[static_cast<std::size_t>(k)].row == r - 1) return found(k, strf("row %d", r));
  return fail(strf("no step works on row %d alone", r));
}

GoTo go_to_tile(const Recording& rec, int i, int j) {
  int ti = 0, tj = 0;
  for (const Step& st : rec.steps)
    if (st.tile_i >= 0 && st.tile_j >= 0) ti = std::max(ti, st.tile_i + 1), tj = std::max(tj, st.tile_j + 1);
  if (ti == 0) return fail("this recording has no tiles: go to a step, a pass or a row");
  if (i < 1 || i > ti) return fail(strf("tile (%d, %d) is not in this recording: i runs 1..%d", i, j, ti));
  if (j < 1 || j > tj) return fail(strf("tile (%d, %d) is not in this recording: j runs 1..%d", i, j, tj));
  for (int k = 0; k < rec.step_count(); ++k) {
    const Step& st = rec.steps[static_cast<std::size_t>(k)];
    if (st.tile_i == i - 1 && st.tile_j == j - 1) return found(k, strf("tile (%d, %d)", i, j));
  }
  return fail(strf("no step works on tile (%d, %d): the mask leaves nothing to do there", i, j));
}

}  // namespace

GoTo parse_go_to(const Recording& rec, std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) return fail(std::string("type a step, a pass, a row or a tile: ") + kTry);
  const std::string s = lower(t);
  std::string_view rest;
  auto one_number = [&](std::string_view what, auto&& go) -> GoTo {
    const auto v = numbers(rest);
    if (!v || v->size() != 1)
      return fail(strf("\"%.*s\" is not a %.*s number: %s", static_cast<int>(t.size()), t.data(),
                       static_cast<int>(what.size()), what.data(), kTry));
    return go(rec, v->front());
  };
  if (starts_with_word(s, "step", rest, t)) return one_number("step", go_to_step);
  if (starts_with_word(s, "row", rest, t)) return one_number("row", go_to_row);
  if (starts_with_word(s, "pass", rest, t)) {
    if (const auto v = numbers(rest); v && v->size() == 1) return go_to_pass(rec, v->front());
    const std::string name = lower(rest);
    for (int p = 1; p <= rec.pass_count(); ++p)
      if (lower(rec.pass_names[static_cast<std::size_t>(p - 1)]) == name) return go_to_pass(rec, p);
    std::string names;
    for (const std::string& n : rec.pass_names) names += (names.empty() ? "" : ", ") + n;
    return fail(strf("no pass \"%.*s\": this recording has %d (%s)", static_cast<int>(rest.size()), rest.data(),
                     rec.pass_count(), names.c_str()));
  }
  if (starts_with_word(s, "tile", rest, t)) {
    const auto v = numbers(rest);
    if (!v || v->size() != 2)
      return fail(strf("\"%.*s\" is not a tile: write it as tile (i, j), e.g. tile (1, 2)", static_cast<int>(t.size()),
                       t.data()));
    return go_to_tile(rec, (*v)[0], (*v)[1]);
  }
  if (const auto v = numbers(s)) {
    const bool bracketed = s.find('(') != std::string::npos || s.find(',') != std::string::npos;
    if (v->size() == 1 && !bracketed) return go_to_step(rec, v->front());
    if (v->size() == 2) return go_to_tile(rec, (*v)[0], (*v)[1]);
  }
  // A pass by its name alone ("normalize").
  for (int p = 1; p <= rec.pass_count(); ++p)
    if (lower(rec.pass_names[static_cast<std::size_t>(p - 1)]) == s) return go_to_pass(rec, p);
  return fail(strf("\"%.*s\" is not a step, pass, row or tile: %s", static_cast<int>(t.size()), t.data(), kTry));
}

}  // namespace flashstep
