// The 1/√d lab: why attention divides scores by √d. For standard-normal q and k the dot
// product q·k has variance d, so with a large head dimension the scores spread out and softmax
// collapses onto one key; q·k/√d has variance 1 whatever d is.
//
// The numbers are plain double-precision math in lab_scale.cpp (the engines are not needed
// here); tests/app/test_labs.cpp checks them, including the worked example
// [10, 0, −5] / √64 = [1.25, 0, −0.625] → [0.6945, 0.1990, 0.1065].
#pragma once

#include <array>
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
  // The tab's height besides its four plots', from the frame before: the plots take the rest
  // (a slide), at least their height in the window. Negative: not measured yet.
  float fixed_h = -1;
  float fixed_scale = 0;  // the scale fixed_h was measured at
  int stacked = 2;        // plots above each other in a column, then
  // What the last frame drew (screen pixels), for tests: each bar plot's bars' area and the
  // line its statistic is written on, the plots' height, the height the lab took and had.
  struct Drawn {
    float plot_h = 0, least = 0, most = 0, used = 0, room = 0;
    std::vector<std::array<float, 4>> bars, statistic;  // x, y, w, h
  } drawn;
};

void update_scale_lab(ScaleLab& lab);
// Draws into the current window (the 1/√d lab tab); `scale` is the UI scale. On a slide
// (`slide_floor` > 0: nothing scrolls) the plots take the room there is, and where that is too
// little the lab is drawn smaller, down to 3/4 of `slide_floor`, the scale at font 1×.
void draw_scale_lab(ScaleLab& lab, float scale, float slide_floor = 0);

}  // namespace flashstep::ui
