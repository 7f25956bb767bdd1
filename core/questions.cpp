// Predict-the-value questions and their scoring (core/questions.h).
#include "core/questions.h"

#include "core/precision.h"
#include "core/text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace flashstep {

namespace {

// ---- reading a step's deltas ----------------------------------------------------------------

// A cell of one buffer as step k leaves it: its value before the step (the first delta's old)
// and after it (the last delta's value).
struct CellMove {
  int index = -1;
  double before = 0, after = 0;
  bool before_defined = false, after_defined = false;
};

std::vector<CellMove> moves(const Recording& rec, int k, int buffer) {
  std::vector<CellMove> out;
  if (buffer < 0) return out;
  const std::uint32_t end = rec.steps[static_cast<std::size_t>(k)].delta_end;
  for (std::uint32_t d = rec.delta_begin(k); d < end && d < rec.deltas.size(); ++d) {
    const Delta& dl = rec.deltas[d];
    if (static_cast<int>(dl.buffer) != buffer) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const CellMove& m) { return m.index == static_cast<int>(dl.index); });
    if (it == out.end()) {
      out.push_back({static_cast<int>(dl.index), dl.old, dl.value, dl.old_defined, dl.defined});
    } else {
      it->after = dl.value, it->after_defined = dl.defined;
    }
  }
  return out;
}

std::string row_words(const Recording& rec, int buffer, int row) {
  return rec.buffers[static_cast<std::size_t>(buffer)].rows > 1 ? strf(" of row %d", row + 1) : std::string();
}

double round_sig(double x, int p);
int shown_digits(double x);

// The step by its number, as the timeline and the status bar count (its label, "(m₂, l₂)",
// would read as a second quantity asked for).
std::string step_words(int k) { return strf("step %d", k + 1); }

// A value the run holds in a 16-bit format: the question says so, and an answer worked out in
// exact arithmetic is within a step of the format of it.
double format_step(Precision p, double v) {
  if (p != Precision::fp16 && p != Precision::bf16) return 0;
  if (!std::isfinite(v) || v == 0) return 0;
  const int mantissa = p == Precision::fp16 ? 10 : 7;
  return std::ldexp(1.0, std::ilogb(v) - mantissa);
}

Question number_question(const Recording& rec, int k, QuestionKind kind, int row, std::string prompt, double value) {
  Question q;
  q.step = k, q.kind = kind, q.row = row, q.value = value;
  q.slack = format_step(rec.precision, value);
  if (q.slack > 0) prompt.insert(prompt.size() - 1, strf(", in %s", std::string(precision_name(rec.precision)).c_str()));
  q.prompt = std::move(prompt);
  const int need = std::min(kFewestDigits, shown_digits(value));
  q.hint = need > 1 ? strf("a number, %d digits or more", need) : "a number";
  q.digits = kShownDigits;
  q.shown = num(value, kShownDigits);
  return q;
}

// The loop a tile step moves along from the step before it (Question::moves): 'i', 'j', or 0
// when it jumps, is no tile step or follows none.
char tile_move(const Step& before, const Step& st) {
  if (st.tile_i < 0 || st.tile_j < 0 || before.tile_i < 0 || before.tile_j < 0) return 0;
  if (st.tile_i != before.tile_i && st.tile_j == before.tile_j) return 'i';
  if (st.tile_j != before.tile_j && st.tile_i == before.tile_i) return 'j';
  return 0;
}

// The questions step k can ask, most interesting first, at most one of each kind.
std::vector<Question> candidates(const Recording& rec, int k, int m_buf, int l_buf) {
  std::vector<Question> out;
  const Step& st = rec.steps[static_cast<std::size_t>(k)];
  // A tile step: which tile comes next tells the loop order (K/V blocks outer or Q blocks outer).
  // Its m and l follow from scores not on screen yet, so a tile step asks this instead.
  const Step& before = rec.steps[static_cast<std::size_t>(k - 1)];
  const bool tiled = st.tile_i >= 0 && st.tile_j >= 0;
  if (tiled && (st.tile_i != before.tile_i || st.tile_j != before.tile_j)) {
    Question q;
    q.step = k, q.kind = QuestionKind::tile;
    q.prompt = before.tile_i >= 0 && before.tile_j >= 0
                   ? strf("After tile (%d, %d), which tile (i, j) does step %d work on?", before.tile_i + 1,
                          before.tile_j + 1, k + 1)
                   : strf("Which tile (i, j) does step %d work on?", k + 1);
    q.hint = "a tile: i, j";
    q.tile_i = st.tile_i + 1, q.tile_j = st.tile_j + 1;
    q.moves = tile_move(before, st);
    q.digits = 0;
    q.shown = strf("(%d, %d)", q.tile_i, q.tile_j);
    out.push_back(q);
  }
  const int m_cols = m_buf >= 0 ? rec.buffers[static_cast<std::size_t>(m_buf)].cols : 1;
  for (const CellMove& mv : tiled ? std::vector<CellMove>{} : moves(rec, k, m_buf)) {
    // m changes from a finite value: the step where the running max moves and l, O rescale.
    if (!(mv.before_defined && mv.after_defined && std::isfinite(mv.before) && std::isfinite(mv.after) &&
          mv.after != mv.before))
      continue;
    const int row = mv.index / std::max(m_cols, 1);
    const std::string where = row_words(rec, m_buf, row);
    out.push_back(number_question(rec, k, QuestionKind::m, row, "What is m" + where + " after " + step_words(k) + "?",
                                  mv.after));
    // The rescale factor, where the step rescales a sum it already holds (online softmax,
    // FlashAttention; not safe softmax's first pass, which has no l yet).
    const std::vector<CellMove> l_moves = moves(rec, k, l_buf);
    const bool rescales = std::any_of(l_moves.begin(), l_moves.end(), [&](const CellMove& l) {
      return l.index / std::max(l_buf >= 0 ? rec.buffers[static_cast<std::size_t>(l_buf)].cols : 1, 1) == row &&
             l.before_defined && std::isfinite(l.before) && l.before != 0;
    });
    if (!rescales) break;
    const double factor = round_to(rec.precision, std::exp(round_to(rec.precision, mv.before - mv.after)));
    out.push_back(number_question(rec, k, QuestionKind::rescale, row,
                                  "m" + where + " moves at " + step_words(k) +
                                      ": what is the rescale factor e^{m − m′} (m the old maximum, m′ the new one)?",
                                  factor));
    break;
  }
  const int l_cols = l_buf >= 0 ? rec.buffers[static_cast<std::size_t>(l_buf)].cols : 1;
  for (const CellMove& mv : tiled ? std::vector<CellMove>{} : moves(rec, k, l_buf)) {
    // A sum that already held something: its first term alone (l = 1) asks nothing.
    if (!(mv.after_defined && std::isfinite(mv.after) && mv.before_defined && mv.before != 0)) continue;
    const int row = mv.index / std::max(l_cols, 1);
    out.push_back(number_question(rec, k, QuestionKind::l, row,
                                  "What is l" + row_words(rec, l_buf, row) + " after " + step_words(k) + "?",
                                  mv.after));
    break;
  }
  // The end of a pass: how much it read from slow memory.
  const bool pass_ends = k + 1 == rec.step_count() || rec.steps[static_cast<std::size_t>(k + 1)].pass != st.pass;
  if (pass_ends && st.io.hbm_reads > 0) {
    Question q;
    q.step = k, q.kind = QuestionKind::hbm_reads;
    q.prompt = strf("How many elements has the algorithm read from HBM after step %d, the end of pass %d?",
                    k + 1, st.pass);
    q.hint = "a whole number";
    q.value = static_cast<double>(st.io.hbm_reads);
    q.digits = 0;
    q.shown = std::to_string(st.io.hbm_reads);
    out.push_back(q);
  }
  return out;
}

// ---- reading an answer ----------------------------------------------------------------------

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

struct Typed {
  double value = 0;
  int digits = 0;  // significant digits typed; 99 for ∞ and nan
};

// "2.72", "−1.5", "1.2e-5", "inf", "−∞", "nan"; nullopt for anything else.
// "1.7×10⁻⁵" as the screen writes it (num()), "1.7×10^-5" or "1.7x10^-5" as typed: "1.7e-5".
std::string ascii_power(std::string s) {
  static const char* const kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  for (const char* times : {"×10^", "x10^", "*10^"}) s = replace_all(s, times, "e");
  for (const char* times : {"×10", "x10", "*10"}) {
    const std::size_t at = s.find(times);
    if (at == std::string::npos) continue;
    std::string exponent;
    std::size_t k = at + std::string_view(times).size();
    while (k < s.size()) {
      bool found = false;
      if (s.compare(k, 3, "⁻") == 0) exponent += '-', k += 3, found = true;
      for (int d = 0; d < 10 && !found; ++d)
        if (s.compare(k, std::string_view(kSup[d]).size(), kSup[d]) == 0)
          exponent += static_cast<char>('0' + d), k += std::string_view(kSup[d]).size(), found = true;
      if (!found) break;
    }
    if (!exponent.empty()) s = s.substr(0, at) + "e" + exponent + s.substr(k);
  }
  return s;
}

std::optional<Typed> read_number(std::string_view input) {
  std::string s = ascii_power(replace_all(replace_all(trimmed(input), "−", "-"), "∞", "inf"));
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (s == "inf" || s == "+inf" || s == "-inf" || s == "nan")
    return Typed{s == "nan" ? std::nan("") : (s[0] == '-' ? -HUGE_VAL : HUGE_VAL), 99};
  if (s.empty()) return std::nullopt;
  for (char ch : s)
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '+' || ch == 'e'))
      return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  // Significant digits of the mantissa: leading zeros do not count, trailing ones do ("1.50").
  const std::string mantissa = s.substr(0, s.find('e'));
  int digits = 0;
  bool leading = true;
  for (char ch : mantissa) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) continue;
    if (leading && ch == '0') continue;
    leading = false;
    ++digits;
  }
  return Typed{v, std::max(digits, 1)};
}

// x rounded to p significant digits, as %g (and so num()) rounds it.
double round_sig(double x, int p) {
  if (!std::isfinite(x) || x == 0) return x;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
  return std::strtod(buf, nullptr);
}

// The significant digits num() shows for x: 1 for 0.5, 5 for 2.71828.
int shown_digits(double x) {
  for (int p = 1; p < kShownDigits; ++p)
    if (round_sig(x, p) == round_sig(x, kShownDigits)) return p;
  return kShownDigits;
}

std::optional<long long> read_count(std::string_view input) {
  std::string s = replace_all(replace_all(trimmed(input), " ", ""), "\xE2\x80\x89", "");  // thin spaces
  s = replace_all(replace_all(s, ",", ""), "_", "");
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
  return std::stoll(s);
}

// "(2, 1)", "2, 1", "2 1", "tile (2, 1)", "i=2, j=1".
std::optional<std::array<int, 2>> read_tile(std::string_view input) {
  std::string s = trimmed(input);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  s = replace_all(s, "tile", "");
  std::vector<int> values;
  for (std::size_t k = 0; k < s.size();) {
    const char ch = s[k];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      long long v = 0;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])) && v < 1000000) v = v * 10 + (s[k++] - '0');
      values.push_back(static_cast<int>(v));
      continue;
    }
    if (std::string_view(" ,()ij=").find(ch) == std::string_view::npos) return std::nullopt;
    ++k;
  }
  if (values.size() != 2) return std::nullopt;
  return std::array<int, 2>{values[0], values[1]};
}

}  // namespace

std::vector<Question> make_questions(const Recording& rec, int max_questions) {
  std::vector<Question> out;
  const int n = rec.step_count();
  if (n < 2 || max_questions <= 0) return out;
  const int m_buf = rec.find_buffer("m"), l_buf = rec.find_buffer("l");
  // A question every `gap` steps at most, so that most steps are watched, not quizzed.
  const int gap = std::max(3, n / max_questions);
  int last = -gap;
  std::array<int, 5> used{};
  std::string orders;  // the loop orders asked about ('i', 'j')
  // The first step of each loop order the recording has is kept for its tile question: no
  // question is asked in the `gap` steps before it.
  std::vector<int> kept;
  for (int k = 1; k < n && orders.size() < 2; ++k)
    if (const char m = tile_move(rec.steps[static_cast<std::size_t>(k - 1)], rec.steps[static_cast<std::size_t>(k)]);
        m && orders.find(m) == std::string::npos) {
      orders += m;
      kept.push_back(k);
    }
  orders.clear();
  for (int k = 1; k < n && static_cast<int>(out.size()) < max_questions; ++k) {
    if (k - last < gap) continue;
    if (std::any_of(kept.begin(), kept.end(), [&](int r) { return r > k && r - k < gap; })) continue;
    std::vector<Question> c = candidates(rec, k, m_buf, l_buf);
    if (c.empty()) continue;
    // A loop order not asked yet first (the FlashAttention-2 backward's K/V blocks outer after
    // its forward's Q blocks outer); else the kind asked least so far, the most interesting
    // first among equals.
    auto pick = std::find_if(c.begin(), c.end(), [&](const Question& q) {
      return q.kind == QuestionKind::tile && q.moves && orders.find(q.moves) == std::string::npos;
    });
    if (pick == c.end())
      pick = std::min_element(c.begin(), c.end(), [&](const Question& a, const Question& b) {
        return used[static_cast<std::size_t>(a.kind)] < used[static_cast<std::size_t>(b.kind)];
      });
    if (pick->kind == QuestionKind::tile && pick->moves) orders += pick->moves;
    ++used[static_cast<std::size_t>(pick->kind)];
    out.push_back(*pick);
    last = k;
  }
  return out;
}

const Question* question_at(const std::vector<Question>& qs, int step) {
  for (const Question& q : qs)
    if (q.step == step) return &q;
  return nullptr;
}

std::string Verdict::line() const {
  return "you: " + yours + ", right: " + answer + (right ? " ✓" : " ✗");
}

Verdict score(const Question& q, std::string_view input) {
  Verdict v;
  v.answer = q.shown;
  if (trimmed(input).empty()) {
    v.error = "type " + q.hint + ", or press Esc to skip";
    return v;
  }
  if (q.kind == QuestionKind::tile) {
    const auto t = read_tile(input);
    if (!t) {
      v.error = "\"" + trimmed(input) + "\" is not a tile: type it as i, j (e.g. 2, 1)";
      return v;
    }
    v.accepted = true;
    v.yours = strf("(%d, %d)", (*t)[0], (*t)[1]);
    v.right = (*t)[0] == q.tile_i && (*t)[1] == q.tile_j;
    return v;
  }
  if (q.digits == 0) {
    const auto c = read_count(input);
    if (!c) {
      v.error = "\"" + trimmed(input) + "\" is not a whole number";
      return v;
    }
    v.accepted = true;
    v.yours = std::to_string(*c);
    v.right = static_cast<double>(*c) == q.value;
    return v;
  }
  const auto t = read_number(input);
  if (!t) {
    v.error = "\"" + trimmed(input) + "\" is not a number";
    return v;
  }
  const int need = std::min(kFewestDigits, shown_digits(q.value));
  if (t->digits < need) {
    v.error = strf("give at least %d significant digits (the screen shows %s)", need,
                   q.digits == kShownDigits ? "5" : std::to_string(q.digits).c_str());
    return v;
  }
  v.accepted = true;
  v.yours = num(t->value, std::min(t->digits, kShownDigits));
  if (!std::isfinite(q.value) || !std::isfinite(t->value)) {
    v.right = (std::isnan(q.value) && std::isnan(t->value)) || q.value == t->value;
    return v;
  }
  const int p = std::min(t->digits, q.digits);
  // Right at the digits typed; in a 16-bit run, also within a step of the format of the value
  // the run holds (what exact arithmetic gives, before the format rounds it).
  v.right = round_sig(t->value, p) == round_sig(q.value, p) || std::abs(t->value - q.value) <= q.slack;
  return v;
}

}  // namespace flashstep
