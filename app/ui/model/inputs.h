// The Inputs panel's model: what the student typed and chose, and the Scenario it stands for.
// No ImGui here (tests/app/test_inputs.cpp checks it without a window).
//
// The vector field is validated as it is typed: a text that parse_rows() rejects keeps its
// message in vector_error and leaves x (the last valid input) in use, so a half-typed "3,,"
// or "1e" never throws away the lesson the student is looking at ("3, 2," is [3, 2]: one
// comma may end a row).
#pragma once

#include "core/algorithms.h"
#include "core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep::ui {

enum class ScaleChoice { none, inv_sqrt_d, temperature };
enum class BlockChoice { from_sram, explicit_blocks };
enum class Backend { cpu, gpu };

// Limits of the GUI's fields: a recording keeps every step, so it must fit in memory.
inline constexpr int kMaxVectorN = 100000;
inline constexpr int kMaxAttentionN = kWindowMaxN;  // the rows' window_max_n (core/algorithms.h)
inline constexpr int kMaxHeadDim = 1024;

struct Inputs {
  Algorithm algorithm = Algorithm::online;

  // Softmax input.
  std::string vector_text = "3, 2, 5, 1";
  std::string vector_error;  // parse_rows' message for vector_text; empty when it parses
  std::vector<std::vector<double>> x = {{3, 2, 5, 1}};  // the last valid vector
  int random_n = 8;          // length of the "random" preset

  // Attention input (Q, K, V standard normal from the seed) and shared parameters.
  // q, k, v: explicit matrices from a scenario file (N × d each); empty: random from the seed.
  // Editing N, d or the seed drops them (clear_explicit_qkv) and goes back to random ones.
  std::vector<std::vector<double>> q, k, v;
  int N = 8;
  int d = 4;
  std::uint64_t seed = 1;
  Precision precision = Precision::fp32;
  ScaleChoice scale = ScaleChoice::none;
  double temperature = 1.0;  // scale = 1/T
  bool causal = false;
  BlockChoice blocks = BlockChoice::from_sram;
  int Br = 4, Bc = 4;
  int M = kDefaultSram;      // SRAM budget in elements
  int chunks = 4;
  // The parameters declared since format 1 (core/params.h) that the form has set, by key;
  // absent: the default. The panel draws a field for each one the algorithm takes.
  ParamValues params;
  Backend backend = Backend::cpu;
};

// The same form, field by field (the undo history and the kept lessons skip repeats).
bool operator==(const Inputs& a, const Inputs& b);
inline bool operator!=(const Inputs& a, const Inputs& b) { return !(a == b); }

// Whether a scenario (from a file) fits the window's limits, checked before anything is built
// from it: a random vector of rows × n values is drawn only after this. Empty when it fits.
std::string window_limits(const Scenario& s);
// The form a lesson's preset scenario opens with. Throws InputError when window_limits() says
// the scenario does not fit.
Inputs inputs_from(const Scenario& s, Backend backend = Backend::cpu);
// The Scenario the form stands for (not yet checked: resolve() does that).
Scenario scenario_from(const Inputs& in);

// The form's value of a parameter (core/params.h) that the panel draws with the generic field,
// and setting it: a named field of the form for format 1's (workers n_w), in.params otherwise.
long long form_param(const Inputs& in, const ParamDecl& p);
void set_form_param(Inputs& in, const ParamDecl& p, long long value);

// The window's own limits and the fields resolve() does not know about (the temperature, the
// vector's parse error); empty when the form can be recorded. resolve() checks the rest.
std::string check_inputs(const Inputs& in);

// Takes a newly typed vector text. True when it parses: x is replaced and the error cleared.
// False: vector_error holds the message and x is unchanged.
bool edit_vector_text(Inputs& in, const std::string& text);
// Sets the field from values (a preset): text and x together.
void set_vector(Inputs& in, const std::vector<std::vector<double>>& rows);
// "3, 2, 5, 1", rows joined by "; ", numbers as short as they round-trip.
std::string format_rows(const std::vector<std::vector<double>>& rows);

// The presets of the vector field.
struct VectorPreset {
  const char* name;
  const char* tooltip;
  std::vector<double> values;
};
const std::vector<VectorPreset>& vector_presets();
// n values rounded to two decimals: standard normal times 3, so exp() spreads visibly.
std::vector<double> random_vector(int n, std::uint64_t seed);

// The SRAM a tile step of shape `t` holds (core/tiles.h; the forward's kForwardTile: K_j and V_j
// (2·Bc·d), Q_i and O_i (2·Br·d) and the score tile S_ij (Br·Bc)); without its score tiles.
long long tile_elements(const TileShape& t, int Br, int Bc, int d);
long long tile_elements_without_s(const TileShape& t, int Br, int Bc, int d);
inline bool tile_fits(const TileShape& t, int Br, int Bc, int d, int M) { return tile_elements(t, Br, Bc, d) <= M; }

// The Inputs panel's words for a row's input matrices, from its InputSpecs (core/algorithms.h):
// the names of those whose rows run over `rows` ("Q, K and V"; "Q, K, V and dO").
std::string inputs_over(const AlgorithmInfo& row, Extent rows);
bool takes_extent(const AlgorithmInfo& row, Extent e);  // some input's rows or columns are e
// The tooltips of the N, d and seed fields: "Sequence length: Q, K and V are N×d, S and P are
// N×N.", "Head dimension: the length of each q, k, v.", "Q, K and V are standard-normal random
// numbers from this seed."
std::string n_field_help(const AlgorithmInfo& row);
std::string d_field_help(const AlgorithmInfo& row);
std::string seed_field_help(const AlgorithmInfo& row);
// Br and Bc the paper's rule picks for M (core/tiles.h's sram_blocks), before clamping to N.
void blocks_from_sram(int M, int d, int& Br, int& Bc);

// The presets of the attention lessons: Q, K, V chosen so that scores overflow to −∞ in the
// form's precision (big · −big is beyond its largest finite value; big · 1 is not).
struct AttentionPreset {
  const char* name;
  const char* tooltip;  // for fp32; explain.h's attention_preset_tooltip() for each precision
  const char* brief;    // its button where the panel has no room for the name
};
const std::vector<AttentionPreset>& attention_presets();
// Sets N = 4, d = 2 and the preset's Q, K, V for precision in.precision; causal off.
void set_attention_preset(Inputs& in, int preset);
// The value whose square overflows precision p and which times 1 stays finite: 300 in fp16,
// 1e30 in fp32 and bf16, 1e200 in fp64.
double overflowing_value(Precision p);

inline bool has_explicit_qkv(const Inputs& in) { return !in.q.empty(); }
inline void clear_explicit_qkv(Inputs& in) { in.q.clear(), in.k.clear(), in.v.clear(); }

// temperature T ↔ the scale multiplier 1/T.
double scale_of(const Inputs& in);

}  // namespace flashstep::ui
