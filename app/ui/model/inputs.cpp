#include "app/ui/model/inputs.h"

#include "core/algorithms.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace flashstep::ui {

bool operator==(const Inputs& a, const Inputs& b) {
  return a.algorithm == b.algorithm && a.vector_text == b.vector_text && a.vector_error == b.vector_error &&
         a.x == b.x && a.random_n == b.random_n && a.q == b.q && a.k == b.k && a.v == b.v && a.N == b.N &&
         a.d == b.d && a.seed == b.seed && a.precision == b.precision && a.scale == b.scale &&
         a.temperature == b.temperature && a.causal == b.causal && a.blocks == b.blocks && a.Br == b.Br &&
         a.Bc == b.Bc && a.M == b.M && a.chunks == b.chunks && a.params == b.params &&
         a.backend == b.backend;
}

std::string window_limits(const Scenario& s) {
  char buf[300];
  const int max_n = info(s.algorithm).window_max_n;
  if (max_n > 0) {
    const long long N = s.q.empty() ? s.n : static_cast<long long>(s.q.size());
    const long long d = s.q.empty() || s.q[0].empty() ? s.d : static_cast<long long>(s.q[0].size());
    if (N > max_n) {
      std::snprintf(buf, sizeof buf, "N = %lld: the window records every step and shows N×N matrices; it takes "
                                     "N ≤ %d (flashstep run --steps none takes more)", N, max_n);
      return buf;
    }
    if (d > kMaxHeadDim) {
      std::snprintf(buf, sizeof buf, "d = %lld: the window takes head dimensions up to %d", d, kMaxHeadDim);
      return buf;
    }
    return "";
  }
  const long long rows = s.x.empty() ? std::max(s.rows, 1) : static_cast<long long>(s.x.size());
  const long long n = s.x.empty() ? std::max(s.n, 1) : static_cast<long long>(s.x[0].size());
  if (rows * n > kMaxVectorN) {
    std::snprintf(buf, sizeof buf, "%lld rows × %lld values = %lld values: the window records every step, so it "
                                   "takes at most %d (flashstep run --steps none takes more)",
                  rows, n, rows * n, kMaxVectorN);
    return buf;
  }
  return "";
}

Inputs inputs_from(const Scenario& s, Backend backend) {
  if (std::string why = window_limits(s); !why.empty()) throw InputError(why);
  Inputs in;
  in.algorithm = s.algorithm;
  in.precision = s.precision;
  in.causal = s.causal;
  in.seed = s.seed;
  in.d = s.d;
  in.N = s.n;
  in.random_n = s.n;
  in.chunks = s.chunks;
  in.params = s.params;
  in.backend = backend;
  switch (s.scale_mode) {
    case ScaleMode::none: in.scale = ScaleChoice::none; break;
    case ScaleMode::inv_sqrt_d: in.scale = ScaleChoice::inv_sqrt_d; break;
    case ScaleMode::value:
      in.scale = ScaleChoice::temperature;
      in.temperature = s.scale_value != 0 ? 1.0 / s.scale_value : 1.0;
      break;
  }
  if (takes_qkv(s.algorithm) && !s.q.empty() && !s.q[0].empty()) {
    in.q = s.q, in.k = s.k, in.v = s.v;
    in.N = static_cast<int>(s.q.size());
    in.d = static_cast<int>(s.q[0].size());
  }
  if (!s.x.empty()) {
    set_vector(in, s.x);
  } else if (takes(s.algorithm, kInputX)) {
    set_vector(in, random_normal(std::max(s.rows, 1), std::max(s.n, 1), s.seed));
  }
  if (s.block_rows > 0 || s.block_cols > 0) {
    in.blocks = BlockChoice::explicit_blocks;
    in.Br = std::max(s.block_rows, 1);
    in.Bc = std::max(s.block_cols, 1);
    in.M = s.sram > 0 ? s.sram : kDefaultSram;
  } else {
    in.blocks = BlockChoice::from_sram;
    in.M = s.sram > 0 ? s.sram : kDefaultSram;
    blocks_from_sram(in.M, in.d, in.Br, in.Bc);
  }
  return in;
}

double scale_of(const Inputs& in) {
  switch (in.scale) {
    case ScaleChoice::none: return 1.0;
    case ScaleChoice::inv_sqrt_d: return 1.0 / std::sqrt(static_cast<double>(std::max(in.d, 1)));
    case ScaleChoice::temperature: return 1.0 / in.temperature;
  }
  return 1.0;
}

Scenario scenario_from(const Inputs& in) {
  Scenario s;
  s.algorithm = in.algorithm;
  s.precision = in.precision;
  s.d = in.d;
  s.seed = in.seed;
  switch (in.scale) {
    case ScaleChoice::none: s.scale_mode = ScaleMode::none; break;
    case ScaleChoice::inv_sqrt_d: s.scale_mode = ScaleMode::inv_sqrt_d; break;
    case ScaleChoice::temperature:
      s.scale_mode = ScaleMode::value;
      // T = 0 would be a division by zero; resolve() then names the non-finite scale.
      s.scale_value = 1.0 / in.temperature;
      break;
  }
  if (takes_qkv(in.algorithm)) {
    s.n = in.N;
    s.causal = in.causal && info(in.algorithm).takes_mask;
    s.q = in.q, s.k = in.k, s.v = in.v;
    if (in.blocks == BlockChoice::explicit_blocks) {
      s.block_rows = in.Br;
      s.block_cols = in.Bc;
    } else {
      s.sram = in.M;
    }
  } else {
    s.x = in.x;
    s.n = in.x.empty() ? 0 : static_cast<int>(in.x[0].size());
    s.rows = static_cast<int>(in.x.size());
    s.chunks = in.chunks;
  }
  // The newer parameters the algorithm takes; one it does not take keeps its default.
  for (const ParamDecl& p : params())
    if (!p.member && takes(in.algorithm, p))
      if (const auto it = in.params.find(p.key); it != in.params.end()) set_param(s, p, it->second);
  return s;
}

// Format 1's parameters keep named fields in the form; those with a widget of their own (the
// tiles: Br, Bc, M) are not asked for here.
template <typename Form>  // Inputs or const Inputs
static auto named_field(Form& in, const ParamDecl& p) -> decltype(&in.chunks) {
  return p.member == &Scenario::chunks ? &in.chunks : nullptr;
}

long long form_param(const Inputs& in, const ParamDecl& p) {
  if (const int* f = named_field(in, p)) return *f;
  const auto it = in.params.find(p.key);
  return it == in.params.end() ? p.def : it->second;
}

void set_form_param(Inputs& in, const ParamDecl& p, long long value) {
  if (int* f = named_field(in, p)) {
    *f = static_cast<int>(value);
    return;
  }
  in.params[p.key] = value;
}

std::string check_inputs(const Inputs& in) {
  char buf[200];
  const int max_n = info(in.algorithm).window_max_n;
  if (takes(in.algorithm, kInputX) && !in.vector_error.empty()) return in.vector_error;
  if (in.d > kMaxHeadDim) {
    std::snprintf(buf, sizeof buf, "d = %d: the window takes head dimensions up to %d", in.d, kMaxHeadDim);
    return buf;
  }
  if (max_n > 0 && in.N > max_n) {
    std::snprintf(buf, sizeof buf, "N = %d: the window records every step and shows N×N matrices; "
                                   "use N ≤ %d", in.N, max_n);
    return buf;
  }
  if (in.scale == ScaleChoice::temperature && !(std::isfinite(in.temperature) && in.temperature > 0)) {
    std::snprintf(buf, sizeof buf, "temperature T = %g: must be a number above 0 (the scale is 1/T)",
                  in.temperature);
    return buf;
  }
  return "";
}

bool edit_vector_text(Inputs& in, const std::string& text) {
  in.vector_text = text;
  try {
    auto rows = parse_rows(text);
    const long long cells = static_cast<long long>(rows.size()) * static_cast<long long>(rows[0].size());
    if (cells > kMaxVectorN) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "input has %lld values; the window records every step, so "
                                     "it takes at most %d", cells, kMaxVectorN);
      in.vector_error = buf;
      return false;
    }
    in.x = std::move(rows);
    in.vector_error.clear();
    return true;
  } catch (const InputError& e) {
    in.vector_error = e.what();
    return false;
  }
}

static std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string format_rows(const std::vector<std::vector<double>>& rows) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) out += "; ";
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      if (c > 0) out += ", ";
      out += format_number(rows[r][c]);
    }
  }
  return out;
}

void set_vector(Inputs& in, const std::vector<std::vector<double>>& rows) {
  in.x = rows;
  in.vector_text = format_rows(rows);
  in.vector_error.clear();
}

const std::vector<VectorPreset>& vector_presets() {
  static const std::vector<VectorPreset> kPresets = {
      {"[3, 2, 5, 1]", "The running example: watch m jump from 3 to 5 at x₃.", {3, 2, 5, 1}},
      {"[1000, 2000, 3000]",
       "e¹⁰⁰⁰ overflows to ∞ in every format: naive softmax gives ∞/∞ = [nan, nan, nan], safe softmax [0, 0, 1].",
       {1000, 2000, 3000}},
      {"[10, 0, -5]", "The 1/√d example: peaked without scaling, much flatter with it.",
       {10, 0, -5}},
  };
  return kPresets;
}

const std::vector<AttentionPreset>& attention_presets() {
  static const std::vector<AttentionPreset> kPresets = {
      {"a score overflows to −∞",
       "q₁ · k₁ = big · (−big) is beyond the format's largest number: −∞. Row 1 meets it first, "
       "while its running max is still −∞, where exp(−∞ − (−∞)) would be nan. FlashAttention "
       "uses 0 instead of m there, so the score gets weight exactly 0 and the row is finite.",
       "score → −∞"},
      {"a row with no finite score",
       "Every score of row 1 overflows to −∞, as if every key were masked: no probability mass. "
       "The row's output is 0 with l = 0 and m = −∞, as FlashAttention's kernels give it, not "
       "0/0 = nan.",
       "no finite score"},
  };
  return kPresets;
}

double overflowing_value(Precision p) {
  switch (p) {
    case Precision::fp64: return 1e200;
    case Precision::fp16: return 300;
    default: return 1e30;
  }
}

void set_attention_preset(Inputs& in, int preset) {
  const double b = overflowing_value(in.precision);
  // Row 1 meets big · (−big) at key 1; the other rows have q · k₁ = 0 · (−big) = 0.
  in.q = {{b, 0}, {0, 1}, {0, -1}, {0, 2}};
  if (preset == 0) {
    in.q[0][1] = 1;
    in.k = {{-b, 0}, {0, 1}, {0, -1}, {0, 0.5}};
  } else {
    in.k = {{-b, 0}, {-b, 1}, {-b, -1}, {-b, 0.5}};
  }
  in.v = {{1, 0}, {0, 1}, {1, 1}, {-1, 2}};
  in.N = 4;
  in.d = 2;
  in.causal = false;
}

std::vector<double> random_vector(int n, std::uint64_t seed) {
  auto rows = random_normal(1, std::max(n, 1), seed);
  for (double& v : rows[0]) v = std::round(v * 300.0) / 100.0;
  return rows[0];
}

long long tile_elements_without_s(const TileShape& t, int Br, int Bc, int d) { return tile_budget(t, Br, Bc, d, 0).paper; }

long long tile_elements(const TileShape& t, int Br, int Bc, int d) { return tile_budget(t, Br, Bc, d, 0).with_s; }

namespace {

// "Q", "Q and K", "Q, K and V".
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) out += (k == 0 ? "" : k + 1 == names.size() ? " and " : ", ") + names[k];
  return out;
}

std::vector<std::string> names_over(const AlgorithmInfo& row, Extent rows) {
  std::vector<std::string> out;
  for (const InputSpec* in : row.inputs)
    if (in->rows == rows) out.emplace_back(in->name);
  return out;
}

}  // namespace

std::string inputs_over(const AlgorithmInfo& row, Extent rows) { return joined(names_over(row, rows)); }

bool takes_extent(const AlgorithmInfo& row, Extent e) {
  for (const InputSpec* in : row.inputs)
    if (in->rows == e || in->cols == e) return true;
  return false;
}

std::string n_field_help(const AlgorithmInfo& row) {
  const std::vector<std::string> n = names_over(row, Extent::N);
  return "Sequence length: " + joined(n) + (n.size() == 1 ? " is" : " are") + " N×d, S and P are N×N.";
}

std::string d_field_help(const AlgorithmInfo& row) {
  // A row of Q is the vector q (one letter: its lower case); a longer name's row is named so.
  std::string vectors, rows;
  for (const std::string& n : names_over(row, Extent::N)) {
    if (n.size() == 1) vectors += (vectors.empty() ? "" : ", ") + std::string(1, static_cast<char>(n[0] - 'A' + 'a'));
    else rows += (rows.empty() ? "" : ", ") + n;
  }
  return "Head dimension: the length of each " + vectors + (rows.empty() ? "" : " and of each row of " + rows) + ".";
}

std::string seed_field_help(const AlgorithmInfo& row) {
  const std::vector<std::string> n = names_over(row, Extent::N);
  return joined(n) + (n.size() == 1 ? " is" : " are") + " standard-normal random numbers from this seed.";
}

void blocks_from_sram(int M, int d, int& Br, int& Bc) {
  const SramBlocks b = sram_blocks(M, d);  // in 64 bits: a typed d or M near the largest int
  Br = b.Br;
  Bc = b.Bc;
}

}  // namespace flashstep::ui
