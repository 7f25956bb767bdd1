// The 1/√d lab: why attention divides scores by √d. For standard-normal q and k the dot
// product q·k has variance d, so with a large head dimension the scores spread out and softmax
// collapses onto one key; q·k/√d has variance 1 whatever d is.
//
// The numbers are plain double-precision math in lab_scale.cpp (the engines are not needed
// here); tests/app/test_labs.cpp checks them, including the worked example
// [10, 0, −5] / √64 = [1.25, 0, −0.625] → [0.6945, 0.1990, 0.1065].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep::ui {

std::vector<double> softmax(const std::vector<double>& s);
double entropy(const std::vector<double>& p);  // in nats
double max_of(const std::vector<double>& v);

// `count` dot products q·k of standard-normal vectors of length d.
std::vector<double> dot_samples(int d, std::uint64_t seed, int count);
double mean_of(const std::vector<double>& v);
double variance_of(const std::vector<double>& v);

// Scores of one standard-normal query against `keys` standard-normal keys, unscaled.
std::vector<double> query_scores(int d, std::uint64_t seed, int keys);

// Mean entropy and mean max weight of softmax over `keys` keys, averaged over `queries`
// random queries, with and without 1/√d, for d = 1, 2, 4, …, 1024.
struct ScaleCurves {
  std::vector<int> d;
  std::vector<double> entropy_raw, entropy_scaled, max_raw, max_scaled;
};
ScaleCurves scale_curves(std::uint64_t seed, int keys, int queries);

inline constexpr int kScaleLabKeys = 16;
inline constexpr int kScaleLabSamples = 4000;

struct ScaleLab {
  int d = 64;
  int seed = 1;
  std::string seed_error;  // why the last seed typed was refused; empty when it was not
  // Results for (cached_d, cached_seed); recomputed when the controls change.
  int cached_d = -1, cached_seed = -1;
  std::vector<double> dots;                  // q·k samples
  double var = 0;
  std::vector<float> hist_raw, hist_scaled;  // histograms of q·k and q·k/√d
  double hist_lo = 0, hist_hi = 0;           // x range of hist_raw
  std::vector<double> scores, w_raw, w_scaled;
  ScaleCurves curves;
  int curves_seed = -1;
};

void update_scale_lab(ScaleLab& lab);
// Draws into the current window (the 1/√d lab tab); `scale` is the UI scale.
void draw_scale_lab(ScaleLab& lab, float scale);

}  // namespace flashstep::ui
