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

// Largest rel_diff over the rows of a rows x 1 buffer at the cursors' positions; a cell defined
// on one side only counts as an infinite difference.
double column_diff(const Cursor& ca, const Cursor& cb, int ba, int bb, int rows) {
  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    const bool da = ca.defined(ba, r, 0), db = cb.defined(bb, r, 0);
    if (da != db) return kInf;
    if (da) worst = std::max(worst, rel_diff(ca.value(ba, r, 0), cb.value(bb, r, 0)));
  }
  return worst;
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
    rep.results.push_back({ra.name, true, worst});
  }
  for (const RowResult& ra : a.results.rows)
    if (const RowResult* rb = b.results.find_row(ra.name))
      rep.results.push_back({ra.name, false, list_diff(ra.values, rb->values)});
  auto entry = [&](std::string_view name, bool matrix) -> double* {
    for (ResultDiff& d : rep.results)
      if (d.name == name && d.matrix == matrix) return &d.max_diff;
    return nullptr;
  };
  if (!a.keep_steps || !b.keep_steps) return named(rep);

  // The per-row registers of a result's name, compared at every step as well.
  struct Column {
    int a, b;
    double* worst;
  };
  std::vector<Column> columns;
  for (const RowResult& r : a.results.rows) {
    const int ba = a.find_buffer(r.name), bb = b.find_buffer(r.name);
    if ((ba < 0) != (bb < 0)) {
      rep.mismatch = "one recording has an " + r.name + " buffer the other lacks";
      return named(rep);
    }
    double* worst = entry(r.name, false);
    if (ba >= 0 && worst && a.buffers[ba].cols == 1 && b.buffers[bb].rows == a.buffers[ba].rows)
      columns.push_back({ba, bb, worst});
  }
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
    for (const Column& col : columns)
      *col.worst = std::max(*col.worst, column_diff(ca, cb, col.a, col.b, a.buffers[col.a].rows));
    ++rep.steps_compared;
  }
  return named(rep);
}

}  // namespace flashstep
