#include "core/compare.h"

#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace flashstep {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 0 when the pair is equal as a pattern (NaN, NaN or the same inf), inf when only one side is
// non-finite or the infinities differ, and -1 when both are finite (compare them as numbers).
double nonfinite_diff(double a, double b) {
  const bool fa = std::isfinite(a), fb = std::isfinite(b);
  if (fa && fb) return -1;
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0)) return 0;
  return kInf;
}

// Largest difference (rel_diff for a statistic, abs_diff for a matrix) over the cells of a
// buffer at the cursors' positions; a cell defined on one side only counts as an infinite
// difference.
double buffer_diff(const Cursor& ca, const Cursor& cb, int ba, int bb, int rows, int cols, bool matrix) {
  double worst = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const bool da = ca.defined(ba, r, c), db = cb.defined(bb, r, c);
      if (da != db) return kInf;
      if (!da) continue;
      const double x = ca.value(ba, r, c), y = cb.value(bb, r, c);
      worst = std::max(worst, matrix ? abs_diff(x, y) : rel_diff(x, y));
    }
  return worst;
}

// The buffer holding the result `name`: the one declaring it holds it (BufferInfo::holds: the
// output in O or y), else of that name, else of that name case aside (lse in LSE, dq in dQ); −1
// when none.
int holder(const Recording& rec, std::string_view name) {
  for (std::size_t b = 0; b < rec.buffers.size(); ++b)
    if (rec.buffers[b].result == name) return static_cast<int>(b);
  if (const int b = rec.find_buffer(name); b >= 0) return b;
  for (std::size_t b = 0; b < rec.buffers.size(); ++b) {
    const std::string& n = rec.buffers[b].name;
    if (n.size() == name.size() &&
        std::equal(n.begin(), n.end(), name.begin(), [](char x, char y) {
          return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
        }))
      return static_cast<int>(b);
  }
  return -1;
}

double list_diff(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return kInf;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, rel_diff(a[i], b[i]));
  return worst;
}

// Fills the report's named fields from its list of results.
CompareReport named(CompareReport rep) {
  for (const ResultDiff& d : rep.results) {
    if (d.matrix && d.name == "output") rep.max_abs_output_diff = d.max_diff;
    if (!d.matrix && d.name == "m") rep.max_rel_m_diff = d.max_diff;
    if (!d.matrix && d.name == "l") rep.max_rel_l_diff = d.max_diff;
  }
  return rep;
}

std::string step_key(const Step& s) {
  return strf("pass %d, row %d, tile (%d, %d)", s.pass, s.row, s.tile_i, s.tile_j);
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The bytes of the superscript digit at t[k] (⁰ ¹ ² ³ ⁴ … ⁹ in UTF-8), 0 if none.
std::size_t superscript_digit_at(std::string_view t, std::size_t k) {
  for (std::string_view d : {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"})
    if (t.substr(k, d.size()) == d) return d.size();
  return 0;
}

// The length of the number starting at t[i] (0 if none):
// [- or −](digits[.digits][e[+-]digits | ×10[⁻]superscript digits] | inf | nan), as C prints
// numbers and as the sentences do (core/text.h: "−5.722×10⁻⁶").
std::size_t number_at(std::string_view t, std::size_t i) {
  constexpr std::string_view kMinus = "−", kTimesTen = "×10", kSuperMinus = "⁻";
  std::size_t k = i;
  if (k < t.size() && t[k] == '-') ++k;
  else if (t.substr(k, kMinus.size()) == kMinus) k += kMinus.size();
  for (std::string_view word : {"inf", "nan"})
    if (t.substr(k, 3) == word && (k + 3 == t.size() || !is_word(t[k + 3])))
      return k + 3 - i;
  const std::size_t digits = k;
  while (k < t.size() && is_digit(t[k])) ++k;
  if (k < t.size() && t[k] == '.' && k + 1 < t.size() && is_digit(t[k + 1])) {
    ++k;
    while (k < t.size() && is_digit(t[k])) ++k;
  }
  if (k == digits) return 0;
  if (k < t.size() && (t[k] == 'e' || t[k] == 'E')) {
    std::size_t e = k + 1;
    if (e < t.size() && (t[e] == '+' || t[e] == '-')) ++e;
    if (e < t.size() && is_digit(t[e])) {
      while (e < t.size() && is_digit(t[e])) ++e;
      k = e;
    }
  } else if (t.substr(k, kTimesTen.size()) == kTimesTen) {
    std::size_t e = k + kTimesTen.size();
    if (t.substr(e, kSuperMinus.size()) == kSuperMinus) e += kSuperMinus.size();
    if (superscript_digit_at(t, e) > 0) {
      while (std::size_t n = superscript_digit_at(t, e)) e += n;
      k = e;
    }
  }
  return k - i;
}

// The first difference of label, pseudocode lines or sentence of two steps, "" when none.
std::string story_diff(const Step& a, const Step& b) {
  if (a.label != b.label) return strf("label differs: '%s' vs '%s'", a.label.c_str(), b.label.c_str());
  if (a.line != b.line || a.line_end != b.line_end)
    return strf("pseudocode lines differ: %d-%d vs %d-%d", a.line, a.line_end, b.line, b.line_end);
  if (mask_numbers(a.text) != mask_numbers(b.text))
    return strf("sentence differs: '%s' vs '%s'", a.text.c_str(), b.text.c_str());
  return "";
}

}  // namespace

std::string mask_numbers(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size();) {
    const bool starts = i == 0 || (!is_word(t[i - 1]) && t[i - 1] != '.');
    const std::size_t len = starts ? number_at(t, i) : 0;
    if (len > 0) {
      out += '#';
      i += len;
    } else {
      out += t[i++];
    }
  }
  return out;
}

double abs_diff(double a, double b) {
  const double nf = nonfinite_diff(a, b);
  return nf >= 0 ? nf : std::fabs(a - b);
}

double rel_diff(double a, double b) {
  const double nf = nonfinite_diff(a, b);
  if (nf >= 0) return nf;
  return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1.0});
}

CompareReport compare(const Recording& a, const Recording& b) {
  if (a.algorithm != b.algorithm || a.rows != b.rows || a.n != b.n || a.d != b.d ||
      a.output().rows() != b.output().rows() || a.output().cols() != b.output().cols())
    throw std::invalid_argument("compare: the recordings are not of the same algorithm and shape");
  CompareReport rep;
  for (const MatrixResult& ra : a.results.matrices) {
    const MatrixResult* rb = b.results.find_matrix(ra.name);
    if (!rb) continue;
    if (ra.values.rows() != rb->values.rows() || ra.values.cols() != rb->values.cols())
      throw std::invalid_argument("compare: the recordings' " + ra.name + " differ in shape");
    double worst = 0;
    for (Eigen::Index i = 0; i < ra.values.size(); ++i)
      worst = std::max(worst, abs_diff(ra.values.data()[i], rb->values.data()[i]));
    rep.results.push_back({ra.name, true, worst, ra.group});
  }
  for (const RowResult& ra : a.results.rows)
    if (const RowResult* rb = b.results.find_row(ra.name))
      rep.results.push_back({ra.name, false, list_diff(ra.values, rb->values), ""});
  auto entry = [&](std::string_view name, bool matrix) -> double* {
    for (ResultDiff& d : rep.results)
      if (d.name == name && d.matrix == matrix) return &d.max_diff;
    return nullptr;
  };
  if (!a.keep_steps || !b.keep_steps) return named(rep);

  // The buffers holding a result (its name, case aside), compared at every step as well.
  struct Held {
    int a, b, rows, cols;
    bool matrix;
    double* worst;
  };
  std::vector<Held> held;
  auto hold = [&](const std::string& name, bool matrix, Eigen::Index rows, Eigen::Index cols) {
    const int ba = holder(a, name), bb = holder(b, name);
    if ((ba < 0) != (bb < 0)) {
      rep.mismatch = "one recording has an " + name + " buffer the other lacks";
      return false;
    }
    double* worst = entry(name, matrix);
    if (ba < 0 || !worst) return true;
    const BufferInfo &xa = a.buffers[static_cast<std::size_t>(ba)], &xb = b.buffers[static_cast<std::size_t>(bb)];
    // A statistic: a column of any length, the same in both; a matrix: the result's shape.
    if (rows < 0) rows = xa.rows;
    if (xa.rows == rows && xa.cols == cols && xb.rows == rows && xb.cols == cols)
      held.push_back({ba, bb, xa.rows, xa.cols, matrix, worst});
    return true;
  };
  for (const RowResult& r : a.results.rows)
    if (!hold(r.name, false, -1, 1)) return named(rep);
  for (const MatrixResult& m : a.results.matrices)
    if (!hold(m.name, true, m.values.rows(), m.values.cols())) return named(rep);
  if (a.step_count() != b.step_count())
    rep.mismatch = strf("%d steps against %d", a.step_count(), b.step_count());
  Cursor ca(a), cb(b);
  const int steps = std::min(a.step_count(), b.step_count());
  for (int k = 0; k < steps; ++k) {
    const Step& sa = a.steps[k];
    const Step& sb = b.steps[k];
    if (sa.pass != sb.pass || sa.row != sb.row || sa.tile_i != sb.tile_i || sa.tile_j != sb.tile_j) {
      rep.mismatch = strf("step %d differs: %s against %s", k, step_key(sa).c_str(), step_key(sb).c_str());
      break;
    }
    if (const std::string story = story_diff(sa, sb); !story.empty()) {
      rep.mismatch = strf("step %d: %s", k, story.c_str());
      break;
    }
    ca.seek(k);
    cb.seek(k);
    for (const Held& h : held)
      *h.worst = std::max(*h.worst, buffer_diff(ca, cb, h.a, h.b, h.rows, h.cols, h.matrix));
    ++rep.steps_compared;
  }
  return named(rep);
}

}  // namespace flashstep
