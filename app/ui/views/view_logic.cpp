#include "app/ui/views/view_logic.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

namespace flashstep::ui {

// ---- [SECTION] values and colours ---------------------------------------------------------

void ValueRange::add(double v) {
  if (!std::isfinite(v)) return;
  if (empty) {
    lo = hi = v;
    empty = false;
  } else {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

float ValueRange::t(double v) const {
  if (empty || !(hi > lo)) return 0.5f;
  return static_cast<float>(std::clamp((v - lo) / (hi - lo), 0.0, 1.0));
}

float ValueRange::signed_t(double v) const {
  const double a = std::max(std::fabs(lo), std::fabs(hi));
  if (empty || !(a > 0)) return 0.5f;
  return static_cast<float>(std::clamp(0.5 + 0.5 * v / a, 0.0, 1.0));
}

namespace {

ValueRange scan_range(const Recording& rec, int buffer) {
  ValueRange r;
  if (buffer < 0 || buffer >= static_cast<int>(rec.initial.values.size())) return r;
  const auto& v = rec.initial.values[buffer];
  const auto& def = rec.initial.defined[buffer];
  for (std::size_t i = 0; i < v.size(); ++i)
    if (def[i]) r.add(v[i]);
  for (const Delta& d : rec.deltas)
    if (static_cast<int>(d.buffer) == buffer && d.defined) r.add(d.value);
  return r;
}

}  // namespace

ValueRange buffer_range(const Recording& rec, int buffer) {
  // Every frame asks for the same few ranges, and a recording of 100,000 elements has 400,000
  // deltas to scan: the last answers are kept per thread, keyed by the recording's address and
  // its fingerprint (a new recording may reuse an old one's address).
  struct Entry {
    const Recording* rec = nullptr;
    std::uint64_t fingerprint = 0;
    int buffer = -1;
    ValueRange range;
  };
  thread_local Entry cache[8];
  thread_local int next = 0;
  const std::uint64_t fp = recording_fingerprint(rec);
  for (const Entry& e : cache)
    if (e.rec == &rec && e.fingerprint == fp && e.buffer == buffer) return e.range;
  Entry& e = cache[next];
  next = (next + 1) % 8;
  e = {&rec, fp, buffer, scan_range(rec, buffer)};
  return e.range;
}

namespace {

std::uint64_t mix_in(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t bits(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

std::uint64_t recording_fingerprint(const Recording& rec) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(rec.algorithm), static_cast<std::uint64_t>(rec.precision),
        static_cast<std::uint64_t>(rec.rows), static_cast<std::uint64_t>(rec.n),
        static_cast<std::uint64_t>(rec.d), static_cast<std::uint64_t>(rec.Br),
        static_cast<std::uint64_t>(rec.Bc), static_cast<std::uint64_t>(rec.steps.size()),
        static_cast<std::uint64_t>(rec.deltas.size()), rec.io.hbm_reads, rec.io.flops, bits(rec.scale)})
    h = mix_in(h, v);
  for (const auto& values : rec.initial.values) {
    const std::size_t step = std::max<std::size_t>(values.size() / 16, 1);
    for (std::size_t i = 0; i < values.size(); i += step) h = mix_in(h, bits(values[i]));
  }
  const std::size_t step = std::max<std::size_t>(rec.deltas.size() / 64, 1);
  for (std::size_t i = 0; i < rec.deltas.size(); i += step) h = mix_in(h, bits(rec.deltas[i].value));
  return h;
}

CellKind cell_kind(bool defined, double v) {
  if (!defined) return CellKind::undefined;
  if (std::isnan(v)) return CellKind::nan;
  if (std::isinf(v)) return v > 0 ? CellKind::pos_inf : CellKind::neg_inf;
  return CellKind::finite;
}

std::string compact_number(double v, int digits) {
  if (!std::isfinite(v) || v == 0) return num(v);
  const double a = std::fabs(v);
  if (a >= 1e4 || a < 1e-3) return num_sci(v, digits);  // "1.2×10⁴", as everywhere else
  std::string s = num(a, std::max(digits, 1));
  // %g keeps leading "0." but a cell has no room for it when the digits already say enough.
  if (s.size() > 2 && s[0] == '0' && s[1] == '.' && digits <= 1) s.erase(0, 1);
  return (v < 0 ? "−" : "") + s;
}

std::string tiny_number(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e4) return compact_number(v, 1);
  const double a = std::fabs(v);
  const std::string sign = v < 0 ? "−" : "";
  const long tenths = std::lround(a * 10.0);
  if (tenths == 0) return v == 0 ? "0" : "≈0";  // "0" only where the value is zero
  if (tenths < 10) return sign + "." + std::to_string(tenths);
  return sign + std::to_string(std::lround(a));
}

namespace {

constexpr std::string_view kMinus = "−";
constexpr std::string_view kNearZero = "≈0";  // tiny_number's form of a number below 0.05, not 0

// Where a number's digits start: after its minus sign.
std::size_t digits_at(const std::string& t) { return t.compare(0, kMinus.size(), kMinus) == 0 ? kMinus.size() : 0; }
bool bare_fraction(const std::string& t) { return t.compare(digits_at(t), 1, ".") == 0; }
bool zero_fraction(const std::string& t) { return t.compare(digits_at(t), 2, "0.") == 0; }

}  // namespace

std::vector<std::string> cell_numbers(const std::vector<double>& values,
                                      const std::function<bool(std::size_t, const std::string&)>& fits_at, int most) {
  std::vector<std::string> out;
  out.reserve(values.size());
  // The forms tried, most wanted first, as (digits, with the leading zero): the most digits
  // that fit with the zero, down to two; then two without it (".63" rather than "−0.6"); then
  // one digit, with it and without.
  std::vector<std::pair<int, bool>> order;
  for (int digits = most; digits >= 2; --digits) order.emplace_back(digits, true);
  order.insert(order.end(), {{2, false}, {1, true}, {1, false}});
  bool bare = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const auto fits = [&](const std::string& t) { return fits_at(i, t); };
    const auto form = [&](int digits, bool zero) {
      std::string t = compact_number(v, digits);
      if (zero && bare_fraction(t)) t.insert(digits_at(t), "0");
      if (!zero && zero_fraction(t)) t.erase(digits_at(t), 1);
      return t;
    };
    std::string t;
    for (const auto& [digits, zero] : order)
      if (std::string f = form(digits, zero); fits(f)) {
        t = std::move(f);
        break;
      }
    if (t.empty()) t = tiny_number(v);
    bare |= bare_fraction(t);
    out.push_back(std::move(t));
  }
  if (bare)
    for (std::string& t : out)
      if (zero_fraction(t)) t.erase(digits_at(t), 1);
  // "≈0" is the form of a cell too narrow for its digits, and a negative number, one minus sign
  // wider, loses its digits first: −0.036 read ≈0 beside .007. No number shown with digits is
  // nearer 0 than one that reads ≈0: those are ≈0 too.
  double near = 0;  // the largest |v| that reads ≈0
  for (std::size_t i = 0; i < values.size(); ++i)
    if (out[i] == kNearZero) near = std::max(near, std::fabs(values[i]));
  if (near > 0)
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] != 0 && std::fabs(values[i]) <= near && out[i] != kNearZero && fits_at(i, std::string(kNearZero)))
        out[i] = kNearZero;
  return out;
}

std::string display_number(double v) { return num(v); }

int decimation(float cell_px, float min_px) {
  if (!(cell_px > 0)) return 1;
  if (cell_px >= min_px) return 1;
  return static_cast<int>(std::ceil(min_px / cell_px - 1e-4f));
}

namespace {
int rank(CellKind k) {
  switch (k) {
    case CellKind::nan: return 4;
    case CellKind::pos_inf: return 3;
    case CellKind::finite: return 2;
    case CellKind::neg_inf: return 1;
    case CellKind::undefined: return 0;
  }
  return 0;
}
}  // namespace

void pick_into(ColumnPick& p, int i, bool defined, double v, bool by_magnitude) {
  if (!defined) return;
  ++p.defined;
  const CellKind k = cell_kind(true, v);
  const int a = rank(k), b = rank(p.kind);
  bool better = a > b;
  if (a == b && k == CellKind::finite) better = by_magnitude ? std::fabs(v) > std::fabs(p.value) : v > p.value;
  if (p.index < 0 || better) {
    p.index = i;
    p.value = v;
    p.kind = k;
  }
}

// ---- [SECTION] what a step touches ----------------------------------------------------------

bool region_contains(const Region& g, int r, int c) { return r >= g.r0 && r < g.r1 && c >= g.c0 && c < g.c1; }

std::uint8_t cell_marks(const Step* step, int buffer, int r, int c) {
  if (!step) return 0;
  std::uint8_t m = 0;
  for (const Region& g : step->reads)
    if (g.buffer == buffer && region_contains(g, r, c)) m |= kMarkRead;
  for (const Region& g : step->writes)
    if (g.buffer == buffer && region_contains(g, r, c)) m |= kMarkWrite;
  return m;
}

bool CellChange::changed() const {
  if (!written) return false;
  if (old_defined != new_defined) return true;
  if (!new_defined) return false;
  if (std::isnan(old_value) && std::isnan(new_value)) return false;
  return old_value != new_value;
}

CellChange cell_change(const Recording& rec, const State& now, int playhead, int buffer, int r, int c) {
  CellChange ch;
  if (buffer < 0 || buffer >= static_cast<int>(rec.buffers.size())) return ch;
  const std::uint32_t index = static_cast<std::uint32_t>(r * rec.buffers[buffer].cols + c);
  ch.new_value = ch.old_value = now.values[buffer][index];
  ch.new_defined = ch.old_defined = now.defined[buffer][index] != 0;
  if (playhead < 0 || playhead >= rec.step_count()) return ch;
  for (std::uint32_t i = rec.delta_begin(playhead); i < rec.steps[playhead].delta_end; ++i) {
    const Delta& d = rec.deltas[i];
    if (static_cast<int>(d.buffer) == buffer && d.index == index) {
      ch.old_value = d.old;
      ch.old_defined = d.old_defined;
      ch.written = true;
      break;
    }
  }
  return ch;
}

namespace {

bool has(const Recording& rec, const char* name) { return rec.find_buffer(name) >= 0; }

double cell(const Recording& rec, const State& st, const char* name, int r, int c, bool* defined) {
  const int b = rec.find_buffer(name);
  if (b < 0 || r >= rec.buffers[b].rows || c >= rec.buffers[b].cols) {
    *defined = false;
    return 0;
  }
  *defined = st.is_defined(b, r, c, rec.buffers[b].cols);
  return st.at(b, r, c, rec.buffers[b].cols);
}

std::string overflow_sentence(const Recording& rec, double arg) {
  const std::string p(precision_name(rec.precision));
  return strf("e^{%s} overflows %s: the largest finite %s is %s, so e^{x} is ∞ for every x above %s",
              num(arg).c_str(), p.c_str(), p.c_str(), num(precision_max(rec.precision)).c_str(),
              num(overflow_threshold(rec.precision)).c_str());
}

// Why log y_{c+1} = s·x − LSE of row r is −∞: its own x, an LSE of +∞, or a difference of two
// finite numbers beyond the format's range.
std::string log_y_reason(const Recording& rec, const State& st, int r, int c) {
  bool xd = false, ld = false;
  const double x = cell(rec, st, "x", r, c, &xd) * rec.scale;
  const double lse = cell(rec, st, "LSE", r, 0, &ld);
  const std::string y = "log y" + sub(c + 1), xn = (rec.scale != 1.0 ? "s·x" : "x") + sub(c + 1);
  if (xd && std::isinf(x) && x < 0)
    return strf("%s = −∞: %s = %s − LSE = −∞ − %s = −∞ (y%s = e^{−∞} = 0)", xn.c_str(), y.c_str(), xn.c_str(),
                num(lse).c_str(), sub(c + 1).c_str());
  if (ld && std::isinf(lse) && lse > 0)
    return strf("LSE = ∞ (the row's sum overflowed, or an x is ∞): %s = %s − ∞ = −∞", y.c_str(), num(x).c_str());
  if (xd && ld && std::isfinite(x) && std::isfinite(lse))
    return strf("%s = %s − %s = %s is beyond the largest finite %s (%s), so it rounds to −∞", y.c_str(),
                num(x).c_str(), num(lse).c_str(), num(x - lse).c_str(), std::string(precision_name(rec.precision)).c_str(),
                num(precision_max(rec.precision)).c_str());
  return strf("%s = %s − LSE is −∞", y.c_str(), xn.c_str());
}

}  // namespace

std::string nonfinite_reason(const Recording& rec, const State& st, int buffer, int r, int c) {
  const BufferInfo& b = rec.buffers[buffer];
  const CellKind kind = cell_kind(st.is_defined(buffer, r, c, b.cols), st.at(buffer, r, c, b.cols));
  if (kind == CellKind::finite || kind == CellKind::undefined) return "";
  const std::string p(precision_name(rec.precision));
  const std::string& n = b.name;
  const bool attention = takes_qkv(rec.algorithm);  // its scores are q · k, not a given x

  if (kind == CellKind::neg_inf) {
    if (n == "m" || n == "m_tree")
      return attention ? "m starts at −∞: no score has been seen yet, and max(−∞, s) = s"
                       : "m starts at −∞, so the first max(m, x₁) is x₁";
    if (n == "S" && rec.mask.kind() != Mask::Kind::none && !rec.mask.visible(r, c))
      return strf("masked: %s, so its weight is e^{−∞} = 0", rec.mask.hidden_because(r, c).c_str());
    if (n == "S")
      return strf("q%s · k%s overflowed %s: beyond its largest finite number %s, so the score is −∞ "
                  "and its weight exactly 0. While the row's max is still −∞, the exponents are taken "
                  "against 0 instead of m (m = −∞ → use 0), so e^{S − m} never meets ∞ − ∞",
                  sub(r + 1).c_str(), sub(c + 1).c_str(), p.c_str(), num(precision_max(rec.precision)).c_str());
    if (n == "y" && has(rec, "LSE")) return log_y_reason(rec, st, r, c);
    if (n == "LSE")
      return "LSE = m + log l = −∞ + log 0 = −∞: every x of the row is −∞, so there is no probability mass";
    if (n == "x" || n == "Q" || n == "K" || n == "V") return "the input itself is −∞";
    return strf("−∞: the value passed the largest finite %s (%s) on the negative side", p.c_str(),
                num(precision_max(rec.precision)).c_str());
  }
  if (n == "x" || n == "Q" || n == "K" || n == "V")
    return kind == CellKind::nan ? "the input itself is nan" : "the input itself is ∞";

  if (n == "e") {
    bool xd = false, md = false;
    const double x = cell(rec, st, "x", r, c, &xd);
    const double m = has(rec, "m") ? cell(rec, st, "m", r, 0, &md) : 0.0;
    if (kind == CellKind::nan)
      return std::isinf(x) ? "x − m = ∞ − ∞ is undefined: nan" : "x is nan, and nan spreads";
    if (!std::isfinite(x)) return "x is ∞, so e^{x} is ∞";
    return overflow_sentence(rec, x * rec.scale - (md && std::isfinite(m) ? m : 0.0));
  }
  if (n == "l" || n == "l_tree") {
    if (kind == CellKind::nan) return "the sum became nan: an earlier term was nan (∞ − ∞ inside e^{…})";
    return strf(
        "the sum overflowed: a term e^{x} was already ∞ (or the total passed %s, the "
        "largest finite %s), and ∞ + anything finite stays ∞",
        num(precision_max(rec.precision)).c_str(), p.c_str());
  }
  if (n == "y") {
    bool ed = false, ld = false;
    const double e = cell(rec, st, "e", r, c, &ed);
    const double l = cell(rec, st, "l", r, 0, &ld);
    if (kind == CellKind::nan && ed && ld && std::isinf(e) && std::isinf(l))
      return "y = e / l = ∞ / ∞ is undefined: nan";
    if (kind == CellKind::nan && ed && ld && e == 0 && l == 0)
      return "y = e / l = 0 / 0 is undefined: nan (every x of the row is −∞: no probability mass)";
    if (kind == CellKind::nan) return "nan came from an earlier step (a nan x, m or l) and spreads";
    return "y = e / l is ∞: l is 0 or e overflowed";
  }
  if (n == "LSE") return kind == CellKind::nan ? "log of a nan sum" : "LSE = m + log l with l = ∞";
  if (n == "m" || n == "m_tree")
    return kind == CellKind::nan ? "an input is nan, so the max is nan"
                                 : "an input is ∞, so the max is ∞";
  if (kind == CellKind::pos_inf)
    return strf("∞: the value passed the largest finite %s (%s)", p.c_str(),
                num(precision_max(rec.precision)).c_str());
  return "nan: an undefined operation (∞ − ∞, 0·∞ or ∞ / ∞) happened earlier, and nan "
         "spreads through every later operation";
}

int step_row(const Step* step, int fallback) { return step && step->row >= 0 ? step->row : fallback; }

}  // namespace flashstep::ui
