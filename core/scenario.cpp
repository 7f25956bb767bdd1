#include "core/scenario.h"

#include "core/algorithms.h"
#include "core/text.h"
#include "core/tiles.h"

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

// ---- the inputs a row takes -----------------------------------------------------------------

namespace {

// Where a scenario keeps an extent when the inputs are random.
int scenario_extent(const Scenario& s, Extent e) {
  switch (e) {
    case Extent::n: return s.n;
    case Extent::rows: return s.rows;
    case Extent::N: return s.n;
    case Extent::d: return s.d;
  }
  return 0;
}

// "Q, K, V must all be N x d: got Q 2 x 2, K 1 x 2, V 2 x 2": inputs that share a letter of
// their shapes must agree on it.
void check_agree(const std::vector<const InputSpec*>& inputs, const Scenario& s) {
  auto rows = [&](const InputSpec* in) { return (s.*(in->given)).size(); };
  auto cols = [&](const InputSpec* in) { return (s.*(in->given))[0].size(); };
  auto extent = [&](const InputSpec* in, Extent e, std::size_t& v) {
    if (in->rows == e) v = rows(in);
    else if (in->cols == e) v = cols(in);
    else return false;
    return true;
  };
  bool agree = true;
  for (Extent e : {Extent::n, Extent::rows, Extent::N, Extent::d}) {
    std::size_t first = 0;
    bool seen = false;
    for (const InputSpec* in : inputs) {
      std::size_t v = 0;
      if (!extent(in, e, v)) continue;
      if (seen && v != first) agree = false;
      if (!seen) first = v, seen = true;
    }
  }
  if (agree) return;
  std::string names, got;
  bool same_shape = true;
  for (const InputSpec* in : inputs) {
    names += (names.empty() ? "" : ", ") + std::string(in->name);
    got += strf("%s%s %zu x %zu", got.empty() ? "" : ", ", std::string(in->name).c_str(), rows(in), cols(in));
    same_shape &= in->rows == inputs[0]->rows && in->cols == inputs[0]->cols;
  }
  std::string want;
  if (same_shape) {
    want = names + " must all be " + std::string(extent_name(inputs[0]->rows)) + " x " +
           std::string(extent_name(inputs[0]->cols));
  } else {
    for (const InputSpec* in : inputs)
      want += (want.empty() ? "" : ", ") + std::string(in->name) + " " + std::string(extent_name(in->rows)) + " x " +
              std::string(extent_name(in->cols));
    want = "the inputs must be " + want;
  }
  throw InputError(want + ": got " + got);
}

// Refuses a given matrix the row does not take, naming what it does take.
void check_not_given(const Scenario& s, const AlgorithmInfo& row) {
  for (const InputSpec* in : all_inputs()) {
    if ((s.*(in->given)).empty() || takes(row.algorithm, *in)) continue;
    const std::string id(row.id);
    if (takes(row.algorithm, kInputX) && !in->own)
      throw InputError(id + " is a softmax: give it a vector (input), not Q, K, V");
    if (takes_qkv(row.algorithm) && in == &kInputX)
      throw InputError(id + " is attention: give it Q, K, V (or N, d and a seed), not a vector");
    std::string names;
    for (const InputSpec* own : row.inputs) names += (names.empty() ? "" : ", ") + std::string(own->name);
    throw InputError(strf("%s takes %s; it takes no %s", id.c_str(), names.c_str(), std::string(in->name).c_str()));
  }
}

// "dO must be 32 × 8 (N × d), got 31 rows": an input given on its own (InputSpec::own) against
// the extents the others fixed.
void check_own_shape(const InputSpec& in, const Resolved& r, const std::vector<std::vector<double>>& m) {
  auto extent = [&](Extent e) { return e == Extent::rows ? r.rows : e == Extent::d ? r.d : r.n; };
  const std::size_t rows = static_cast<std::size_t>(extent(in.rows)), cols = static_cast<std::size_t>(extent(in.cols));
  const std::string want = strf("%s must be %zu × %zu (%s × %s)", std::string(in.field).c_str(), rows, cols,
                                std::string(extent_name(in.rows)).c_str(), std::string(extent_name(in.cols)).c_str());
  if (m.size() != rows) throw InputError(want + strf(", got %zu rows", m.size()));
  for (std::size_t k = 0; k < m.size(); ++k)
    if (m[k].size() != cols) throw InputError(want + strf(", got %zu values in row %zu", m[k].size(), k + 1));
}

// The row's inputs: as given (checked, shapes agreeing) or standard normal from the seed, one
// stream drawn in the row's order so that a seed names the whole problem; then rounded. An
// input of its own (dO) is given or drawn whatever the others are, after them in the stream.
void resolve_inputs(const AlgorithmInfo& row, const Scenario& s, Resolved& r) {
  std::vector<const InputSpec*> inputs, own;
  for (const InputSpec* in : row.inputs) (in->own ? own : inputs).push_back(in);
  bool given = false;
  for (const InputSpec* in : inputs) given |= !(s.*(in->given)).empty();
  std::mt19937_64 gen(s.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto draw = [&](const InputSpec* in) {
    auto& m = r.scenario.*(in->given);
    m.assign(static_cast<std::size_t>(scenario_extent(r.scenario, in->rows)),
             std::vector<double>(static_cast<std::size_t>(scenario_extent(r.scenario, in->cols))));
    for (auto& row_values : m)
      for (double& v : row_values) v = normal(gen);
  };
  if (given) {
    for (const InputSpec* in : inputs) check_shape(std::string(in->field).c_str(), s.*(in->given));
    check_agree(inputs, s);
    const auto& first = s.*(inputs[0]->given);
    check_size(std::string(inputs[0]->field).c_str(), static_cast<long long>(first.size()),
               static_cast<long long>(first[0].size()));
  } else {
    // The extents in a fixed order (n before rows), each once; d was checked first of all.
    for (Extent e : {Extent::n, Extent::rows, Extent::N}) {
      bool used = false;
      for (const InputSpec* in : inputs) used |= in->rows == e || in->cols == e;
      if (used) check_positive(std::string(extent_name(e)).c_str(), scenario_extent(s, e));
    }
    for (const InputSpec* in : inputs)
      check_size(std::string(in->field).c_str(), scenario_extent(s, in->rows), scenario_extent(s, in->cols));
    for (const InputSpec* in : inputs) draw(in);
  }
  for (const InputSpec* in : inputs) r.*(in->value) = to_matrix(r.scenario.*(in->given), s.precision);
  // The sizes, read back from the inputs: rows × n for a softmax; N queries (the rows) × d.
  for (const InputSpec* in : inputs) {
    const int rows = static_cast<int>((r.*(in->value)).rows()), cols = static_cast<int>((r.*(in->value)).cols());
    for (auto [e, v] : {std::pair{in->rows, rows}, std::pair{in->cols, cols}}) {
      if (e == Extent::rows) r.rows = v;
      if (e == Extent::n) r.n = v;
      if (e == Extent::N) r.rows = r.n = r.scenario.n = v;
      if (e == Extent::d) r.d = r.scenario.d = v;
    }
  }
  for (const InputSpec* in : own) {
    if ((s.*(in->given)).empty()) draw(in);
    else check_own_shape(*in, r, s.*(in->given));
    r.*(in->value) = to_matrix(r.scenario.*(in->given), s.precision);
  }
}

}  // namespace

Resolved resolve(const Scenario& s) {
  Resolved r;
  r.scenario = s;
  check_positive("d", s.d);
  if (s.scale_mode == ScaleMode::value && !std::isfinite(s.scale_value))
    throw InputError("scale = " + num(s.scale_value) + ": must be a finite number");
  const AlgorithmInfo& row = info(s.algorithm);
  if (s.causal && !row.takes_mask)
    throw InputError(std::string("causal mask: applies to the attention algorithms only, not "
                                 "to ") + std::string(row.id));
  check_not_given(s, row);
  r.d = s.d;  // the d of 1/√d for a row whose inputs have none
  resolve_inputs(row, s, r);
  r.scale = scale_factor(s.scale_mode, s.scale_value, r.d);

  check_params(s);
  if (row.takes_workers) {
    r.chunks = s.chunks;
    // A worker needs at least one element; more workers than elements is clamped (as a
    // block size is clamped to N), so the default 4 also runs on a row of three.
    if (r.chunks > r.n) {
      r.notices.push_back(strf("%d workers are more than the n = %d elements; using %d workers",
                               r.chunks, r.n, r.n));
      r.chunks = r.n;
    }
  }

  if (row.takes_blocks) {
    // One row of each d-wide block the row's tile holds (the forward's Qᵢ, Kⱼ, Vⱼ, Oᵢ: 4·d).
    const int rows = std::max(row.tile.d_wide(), 1);
    if (s.sram > 0 && s.sram < static_cast<long long>(rows) * r.d)
      throw InputError(strf("sram M = %d elements is too small: one row of each of %s needs %d·d = %lld",
                            s.sram, tile_blocks(row.tile).c_str(), rows, static_cast<long long>(rows) * r.d));
    const int M = s.sram > 0 ? s.sram : kDefaultSram;
    // The FlashAttention paper's rule (core/tiles.h). A block size of 0 (or none given) means
    // "from M"; the notice says which values the rule gave.
    const SramBlocks rule = sram_blocks(M, r.d);
    const int bc_rule = rule.Bc, br_rule = rule.Br;
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
