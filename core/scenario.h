// Scenario: everything one run needs (algorithm, inputs, parameters), as a plain value.
//
// A Scenario may leave things open (no explicit input, no block sizes); resolve() checks every
// field, fills in what was left open (random inputs from the seed, block sizes from the SRAM
// budget) and returns a Resolved scenario the engines can run without further checks.
// Every problem is reported as an InputError whose message names the field, the value and
// what is allowed.
#pragma once

#include "core/matrix.h"
#include "core/params.h"
#include "core/precision.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

enum class Algorithm {
  naive,
  safe,
  online,
  chunked,
  logsumexp,
  attn_naive,
  attn_online,
  attn_tiled,
  attn_tiled_v2,
  attn_backward,
  attn_flash_backward,
};

inline constexpr Algorithm kAllAlgorithms[] = {
    Algorithm::naive,      Algorithm::safe,        Algorithm::online,
    Algorithm::chunked,    Algorithm::logsumexp,   Algorithm::attn_naive,
    Algorithm::attn_online, Algorithm::attn_tiled, Algorithm::attn_tiled_v2,
    Algorithm::attn_backward, Algorithm::attn_flash_backward,
};

std::string_view algorithm_id(Algorithm a);        // "attn-tiled-v2"
std::string_view algorithm_title(Algorithm a);     // "FlashAttention-2 loop order"
std::optional<Algorithm> parse_algorithm(std::string_view id);
std::string algorithm_id_list();                   // "naive, safe, ..." for messages

enum class ScaleMode {
  none,        // scores used as they are
  inv_sqrt_d,  // multiplied by 1/√d
  value,       // multiplied by a given number (1/temperature)
};

// A bad field: the message names the field, the value and what is allowed.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Scenario {
  Algorithm algorithm = Algorithm::online;
  Precision precision = Precision::fp32;
  ScaleMode scale_mode = ScaleMode::none;
  double scale_value = 1.0;  // used when scale_mode == value
  bool causal = false;       // attention only: query i sees keys j ≤ i

  // Softmax input: rows × n (each row its own softmax). Empty: random rows × n from seed.
  std::vector<std::vector<double>> x;
  // Attention inputs, each N × d. Empty: random N × d from seed.
  std::vector<std::vector<double>> q, k, v;
  // The upstream gradient dO of the backward rows, N × d. Empty: random from the seed, drawn
  // after Q, K, V (so their draws are those of the forward), or first when Q, K, V are given.
  std::vector<std::vector<double>> d_o;

  int rows = 1;          // softmax rows when the input is random
  int n = 8;             // softmax length or attention N when the input is random
  int d = 4;             // head dimension (attention shape; for softmax, the d of 1/√d)
  std::uint64_t seed = 1;

  int block_rows = 0;    // Br; 0 = from the SRAM budget (resolve() notes the value)
  int block_cols = 0;    // Bc; 0 = from the SRAM budget (resolve() notes the value)
  int sram = 0;          // M in elements for the block sizes left at 0; 0 = kDefaultSram
  int chunks = 4;        // workers n_w of `chunked`; more than n is clamped to n (noted)
  // The parameters declared since format 1 (core/params.h), by key; absent: the default.
  ParamValues params;
};

inline constexpr int kDefaultSram = 16384;  // 64 KiB of fp32, a typical shared memory size
inline constexpr int kMaxElements = 1 << 28; // larger inputs are refused

struct Resolved {
  Scenario scenario;        // as given, with inputs filled in
  MatrixRM x;               // softmax input (rows × n), already rounded to the precision
  MatrixRM q, k, v;         // attention inputs (N × d), rounded to the precision
  MatrixRM d_o;             // the backward's upstream gradient dO (N × d), rounded
  int rows = 0, n = 0, d = 0;
  double scale = 1.0;       // the multiplier applied to every score
  int Br = 0, Bc = 0, Tr = 0, Tc = 0;
  int chunks = 0;
  // What resolve() chose that the scenario did not spell out: a block size clamped to N, block
  // sizes derived from M, a worker count clamped to n.
  std::vector<std::string> notices;
  // Values worked out from others (block sizes from M), stated so that nothing is silent; not an
  // adjustment of what was asked. The JSON lists them under "notices" after the adjustments.
  std::vector<std::string> derived;
};

// Checks every field and fills in what was left open. Throws InputError.
Resolved resolve(const Scenario& s);

// Parses "3, 2, 5, 1" (one row) or "1,2;3,4" (rows separated by ';' or a new line). Values are
// separated by commas, spaces or brackets ("[1, 2]", "1 2"); one comma may end a row ("1, 2,"),
// but an empty value ("1,,2", ",1") is refused, not dropped, and so is an empty row ("1,2;;3,4":
// a ';' closes a row that must hold a value; line breaks alone are layout). Accepts inf, -inf,
// nan and the Unicode minus. Throws InputError naming the offending token, empty value or empty
// row and its position (value k of row r, row r).
std::vector<std::vector<double>> parse_rows(std::string_view text);

// Standard-normal N × d (or rows × n) values from a seed (std::mt19937_64).
std::vector<std::vector<double>> random_normal(int rows, int cols, std::uint64_t seed);

// The scale multiplier a scenario asks for (1, 1/√d or the given value).
double scale_factor(ScaleMode mode, double value, int d);
std::string scale_name(ScaleMode mode, double value);  // "none", "1/sqrt(d)", "0.5"

}  // namespace flashstep
