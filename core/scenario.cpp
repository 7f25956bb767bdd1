#include "core/scenario.h"

#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <random>

namespace flashstep {

// The algorithms' ids, titles and families come from the table in core/algorithms.cpp.

double scale_factor(ScaleMode mode, double value, int d) {
  switch (mode) {
    case ScaleMode::none: return 1.0;
    case ScaleMode::inv_sqrt_d: return 1.0 / std::sqrt(static_cast<double>(d));
    case ScaleMode::value: return value;
  }
  return 1.0;
}

std::string scale_name(ScaleMode mode, double value) {
  switch (mode) {
    case ScaleMode::none: return "none";
    case ScaleMode::inv_sqrt_d: return "1/sqrt(d)";
    case ScaleMode::value: return num(value);
  }
  return "?";
}

// ---- input parsing ------------------------------------------------------------------------

static std::string normalise_minus(std::string_view in) {
  // Accept the Unicode minus (U+2212) and ∞ that students paste from slides.
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.compare(i, 3, "\xE2\x88\x92") == 0) {
      out += '-';
      i += 2;
    } else if (in.compare(i, 3, "\xE2\x88\x9E") == 0) {
      out += "inf";
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

std::vector<std::vector<double>> parse_rows(std::string_view text) {
  const std::string s = normalise_minus(text);
  std::vector<std::vector<double>> rows(1);
  // A comma ends a value: a comma with no value since the last one (or since the row began)
  // stands for an empty value, which is refused rather than dropped ("1,,2" is not [1, 2]).
  // One comma may close a row ("1, 2," as copied from a list); spaces and brackets separate
  // values without standing for one.
  bool value_since_comma = false;
  std::size_t i = 0;
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '[' || c == ']'; };
  auto ends_row = [](char c) { return c == ';' || c == '\n' || c == '\r'; };
  while (i < s.size()) {
    const char c = s[i];
    if (ends_row(c)) {
      // A ';' closes a row, which must hold a value: ";;" is an empty row, refused rather than
      // dropped as an empty value is. A line break after a row (or a blank line) is layout.
      if (c == ';' && rows.back().empty())
        throw InputError(strf("input: row %zu is empty (a ';' with no number before it)", rows.size()));
      if (!rows.back().empty()) rows.emplace_back();
      value_since_comma = false;
      ++i;
      continue;
    }
    if (c == ',') {
      if (!value_since_comma)
        throw InputError(strf("input: value %zu of row %zu is empty (a comma with no number "
                              "before it)",
                              rows.back().size() + 1, rows.size()));
      value_since_comma = false;
      ++i;
      continue;
    }
    if (is_space(c)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j]) && s[j] != ',' && !ends_row(s[j])) ++j;
    const std::string token = s.substr(i, j - i);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size() || token.empty())
      throw InputError(strf("input: '%s' (value %zu of row %zu) is not a number", token.c_str(),
                            rows.back().size() + 1, rows.size()));
    if (errno == ERANGE && std::isinf(v))
      throw InputError(strf("input: '%s' (value %zu of row %zu) is too large for fp64; type inf "
                            "if you mean infinity",
                            token.c_str(), rows.back().size() + 1, rows.size()));
    // strtod reads C's hexadecimal floats too ("0x1p3" is 8): the input is decimal only, so a
    // hex literal is refused rather than read in a meaning the student may not expect.
    const std::size_t digits_at = token.find_first_not_of("+-");
    if (digits_at != std::string::npos &&
        (token.compare(digits_at, 2, "0x") == 0 || token.compare(digits_at, 2, "0X") == 0))
      throw InputError(strf("input: '%s' (value %zu of row %zu) is a hexadecimal number; type it in "
                            "decimal, e.g. 8 for 0x1p3",
                            token.c_str(), rows.back().size() + 1, rows.size()));
    // A non-zero literal below fp64's smallest number would silently become 0.
    if (v == 0) {
      const std::string mantissa = token.substr(0, token.find_first_of("eE"));
      if (mantissa.find_first_of("123456789") != std::string::npos)
        throw InputError(strf("input: '%s' (value %zu of row %zu) is too small for fp64 and would be "
                              "read as 0; type 0 if you mean zero",
                              token.c_str(), rows.back().size() + 1, rows.size()));
    }
    rows.back().push_back(v);
    value_since_comma = true;
    i = j;
  }
  if (rows.back().empty()) rows.pop_back();
  if (rows.empty()) throw InputError("input is empty: type numbers such as 3, 2, 5, 1");
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (rows[r].size() != rows[0].size())
      throw InputError(strf("input: row %zu has %zu values but row 1 has %zu; every row must "
                            "have the same length",
                            r + 1, rows[r].size(), rows[0].size()));
  return rows;
}

std::vector<std::vector<double>> random_normal(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<double>> out(static_cast<std::size_t>(rows),
                                       std::vector<double>(static_cast<std::size_t>(cols)));
  for (auto& row : out)
    for (double& v : row) v = normal(gen);
  return out;
}

// ---- resolve ------------------------------------------------------------------------------

static MatrixRM to_matrix(const std::vector<std::vector<double>>& rows, Precision p) {
  MatrixRM m(static_cast<Eigen::Index>(rows.size()),
             static_cast<Eigen::Index>(rows.empty() ? 0 : rows[0].size()));
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[r].size(); ++c)
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = round_to(p, rows[r][c]);
  return m;
}

static void check_shape(const char* what, const std::vector<std::vector<double>>& m) {
  if (m.empty() || m[0].empty()) throw InputError(strf("%s is empty", what));
  for (std::size_t r = 1; r < m.size(); ++r)
    if (m[r].size() != m[0].size())
      throw InputError(strf("%s: row %zu has %zu values but row 1 has %zu", what, r + 1,
                            m[r].size(), m[0].size()));
}

static void check_size(const char* what, long long rows, long long cols) {
  if (rows * cols > kMaxElements)
    throw InputError(strf("%s would have %lld x %lld = %lld elements; the limit is %d", what,
                          rows, cols, rows * cols, kMaxElements));
}

static void check_positive(const char* field, long long value) {
  if (value < 1) throw InputError(strf("%s = %lld: must be at least 1", field, value));
}

// "Br = 4, Bc = 8 derived from M = 16384 (the default): Bc = ⌈M/4d⌉ = 1024, capped at
// N = 8; Br = min(Bc, d) = 4" for the block sizes the scenario left at 0.
static std::string derived_blocks_notice(const Scenario& s, int M, int bc_rule, int br_rule,
                                         const Resolved& r) {
  const bool br = s.block_rows == 0, bc = s.block_cols == 0;
  auto capped = [&](int rule, int used) {
    return used < rule ? strf(", capped at N = %d", r.n) : std::string();
  };
  std::string out;
  if (br && bc) out = strf("Br = %d, Bc = %d", r.Br, r.Bc);
  else out = br ? strf("Br = %d", r.Br) : strf("Bc = %d", r.Bc);
  out += strf(" derived from M = %d%s: ", M, s.sram > 0 ? "" : " (the default)");
  if (bc) out += strf("Bc = ⌈M/4d⌉ = %d%s", bc_rule, capped(bc_rule, r.Bc).c_str());
  if (br && bc) out += "; ";
  if (br)
    out += strf("Br = %s = %d%s", bc ? "min(Bc, d)" : "min(⌈M/4d⌉, d)", br_rule,
                capped(br_rule, r.Br).c_str());
  return out;
}

Resolved resolve(const Scenario& s) {
  Resolved r;
  r.scenario = s;
  check_positive("d", s.d);
  if (s.scale_mode == ScaleMode::value && !std::isfinite(s.scale_value))
    throw InputError("scale = " + num(s.scale_value) + ": must be a finite number");
  r.scale = scale_factor(s.scale_mode, s.scale_value, s.d);

  if (!is_attention(s.algorithm)) {
    if (s.causal)
      throw InputError(std::string("causal mask: applies to the attention algorithms only, not "
                                   "to ") + std::string(algorithm_id(s.algorithm)));
    if (!s.q.empty() || !s.k.empty() || !s.v.empty())
      throw InputError(std::string(algorithm_id(s.algorithm)) +
                       " is a softmax: give it a vector (input), not Q, K, V");
    if (s.x.empty()) {
      check_positive("n", s.n);
      check_positive("rows", s.rows);
      check_size("input", s.rows, s.n);
      r.scenario.x = random_normal(s.rows, s.n, s.seed);
    } else {
      check_shape("input", s.x);
      check_size("input", static_cast<long long>(s.x.size()), static_cast<long long>(s.x[0].size()));
    }
    r.x = to_matrix(r.scenario.x, s.precision);
    r.rows = static_cast<int>(r.x.rows());
    r.n = static_cast<int>(r.x.cols());
    r.d = s.d;
    check_params(s);
    if (info(s.algorithm).takes_workers) {
      r.chunks = s.chunks;
      // A worker needs at least one element; more workers than elements is clamped (as a
      // block size is clamped to N), so the default 4 also runs on a row of three.
      if (r.chunks > r.n) {
        r.notices.push_back(strf("%d workers are more than the n = %d elements; using %d workers",
                                 r.chunks, r.n, r.n));
        r.chunks = r.n;
      }
    }
    return r;
  }

  // Attention.
  if (!s.x.empty())
    throw InputError(std::string(algorithm_id(s.algorithm)) +
                     " is attention: give it Q, K, V (or N, d and a seed), not a vector");
  const bool given = !s.q.empty() || !s.k.empty() || !s.v.empty();
  if (given) {
    check_shape("Q", s.q);
    check_shape("K", s.k);
    check_shape("V", s.v);
    if (s.k.size() != s.q.size() || s.v.size() != s.q.size() || s.k[0].size() != s.q[0].size() ||
        s.v[0].size() != s.q[0].size())
      throw InputError(strf("Q, K, V must all be N x d: got Q %zu x %zu, K %zu x %zu, V %zu x %zu",
                            s.q.size(), s.q[0].size(), s.k.size(), s.k[0].size(), s.v.size(),
                            s.v[0].size()));
    check_size("Q", static_cast<long long>(s.q.size()), static_cast<long long>(s.q[0].size()));
    r.scenario.d = static_cast<int>(s.q[0].size());
    r.scale = scale_factor(s.scale_mode, s.scale_value, r.scenario.d);
  } else {
    check_positive("N", s.n);
    check_size("Q", s.n, s.d);
    // One stream for all three, so a seed names the whole problem.
    auto all = random_normal(3 * s.n, s.d, s.seed);
    r.scenario.q.assign(all.begin(), all.begin() + s.n);
    r.scenario.k.assign(all.begin() + s.n, all.begin() + 2 * s.n);
    r.scenario.v.assign(all.begin() + 2 * s.n, all.end());
  }
  r.q = to_matrix(r.scenario.q, s.precision);
  r.k = to_matrix(r.scenario.k, s.precision);
  r.v = to_matrix(r.scenario.v, s.precision);
  r.rows = r.n = static_cast<int>(r.q.rows());
  r.d = static_cast<int>(r.q.cols());
  r.scenario.n = r.n;
  r.scenario.d = r.d;

  check_params(s);
  if (info(s.algorithm).takes_blocks) {
    if (s.sram > 0 && s.sram < 4 * r.d)
      throw InputError(strf("sram M = %d elements is too small: one row of each of Qᵢ, Kⱼ, Vⱼ, "
                            "Oᵢ needs 4·d = %d",
                            s.sram, 4 * r.d));
    const int M = s.sram > 0 ? s.sram : kDefaultSram;
    // The FlashAttention paper's rule: Bc = ceil(M / 4d), Br = min(Bc, d). A block size of 0
    // (or none given) means "from M"; the notice says which values the rule gave. In 64 bits:
    // M + 4d overflows an int for M near its largest value. The result is at most M.
    const int bc_rule = static_cast<int>((M + 4LL * r.d - 1) / (4LL * r.d));
    const int br_rule = std::min(bc_rule, r.d);
    r.Bc = s.block_cols > 0 ? s.block_cols : bc_rule;
    r.Br = s.block_rows > 0 ? s.block_rows : br_rule;
    if (r.Br > r.n) {
      if (s.block_rows > 0)
        r.notices.push_back(strf("block rows Br = %d is larger than N = %d; using Br = %d", r.Br,
                                 r.n, r.n));
      r.Br = r.n;
    }
    if (r.Bc > r.n) {
      if (s.block_cols > 0)
        r.notices.push_back(strf("block cols Bc = %d is larger than N = %d; using Bc = %d", r.Bc,
                                 r.n, r.n));
      r.Bc = r.n;
    }
    if (s.block_rows == 0 || s.block_cols == 0)
      r.derived.push_back(derived_blocks_notice(s, M, bc_rule, br_rule, r));
    r.Tr = (r.n + r.Br - 1) / r.Br;
    r.Tc = (r.n + r.Bc - 1) / r.Bc;
  }
  return r;
}

}  // namespace flashstep
