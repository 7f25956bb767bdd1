// The 1/√d lab's numbers: q·k samples, their variance, softmax sharpness against d. No ImGui
// (the model library, tested without a window); lab_scale.cpp draws them.
#include "app/ui/labs/lab_scale.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace flashstep::ui {

// ---- math ---------------------------------------------------------------------------------

std::vector<double> softmax(const std::vector<double>& s) {
  std::vector<double> p(s.size());
  if (s.empty()) return p;
  const double m = *std::max_element(s.begin(), s.end());
  double l = 0;
  for (std::size_t i = 0; i < s.size(); ++i) l += (p[i] = std::exp(s[i] - m));
  for (double& v : p) v /= l;
  return p;
}

double entropy(const std::vector<double>& p) {
  double h = 0;
  for (double v : p)
    if (v > 0) h -= v * std::log(v);
  return h;
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

static double dot_normal(std::mt19937_64& gen, std::normal_distribution<double>& n, int d) {
  double acc = 0;
  for (int i = 0; i < d; ++i) acc += n(gen) * n(gen);
  return acc;
}

std::vector<double> dot_samples(int d, std::uint64_t seed, int count) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> out(static_cast<std::size_t>(std::max(count, 0)));
  for (double& v : out) v = dot_normal(gen, normal, d);
  return out;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double a : v) s += a;
  return s / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean_of(v);
  double s = 0;
  for (double a : v) s += (a - m) * (a - m);
  return s / static_cast<double>(v.size() - 1);
}

std::vector<double> query_scores(int d, std::uint64_t seed, int keys) {
  std::mt19937_64 gen(seed ^ 0x9E3779B97F4A7C15ull);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> q(static_cast<std::size_t>(d));
  for (double& v : q) v = normal(gen);
  std::vector<double> s(static_cast<std::size_t>(keys));
  for (double& sj : s) {
    sj = 0;
    for (int i = 0; i < d; ++i) sj += q[static_cast<std::size_t>(i)] * normal(gen);
  }
  return s;
}

ScaleCurves scale_curves(std::uint64_t seed, int keys, int queries) {
  ScaleCurves c;
  for (int d = 1; d <= 1024; d *= 2) {
    double h_raw = 0, h_scaled = 0, m_raw = 0, m_scaled = 0;
    for (int q = 0; q < queries; ++q) {
      std::vector<double> s = query_scores(d, seed * 1000003ull + static_cast<std::uint64_t>(q), keys);
      const std::vector<double> p = softmax(s);
      for (double& v : s) v /= std::sqrt(static_cast<double>(d));
      const std::vector<double> ps = softmax(s);
      h_raw += entropy(p);
      h_scaled += entropy(ps);
      m_raw += max_of(p);
      m_scaled += max_of(ps);
    }
    const double n = queries;
    c.d.push_back(d);
    c.entropy_raw.push_back(h_raw / n);
    c.entropy_scaled.push_back(h_scaled / n);
    c.max_raw.push_back(m_raw / n);
    c.max_scaled.push_back(m_scaled / n);
  }
  return c;
}

void update_scale_lab(ScaleLab& lab) {
  lab.d = std::clamp(lab.d, 1, 1024);
  lab.seed = std::max(lab.seed, 0);
  const auto seed = static_cast<std::uint64_t>(lab.seed);
  if (lab.curves_seed != lab.seed) {
    lab.curves = scale_curves(seed, kScaleLabKeys, 48);
    lab.curves_seed = lab.seed;
  }
  if (lab.cached_d == lab.d && lab.cached_seed == lab.seed) return;
  lab.cached_d = lab.d;
  lab.cached_seed = lab.seed;
  lab.dots = dot_samples(lab.d, seed, kScaleLabSamples);
  lab.var = variance_of(lab.dots);
  // One x range for both histograms, so the scaled one visibly narrows as d grows.
  const double sd = std::sqrt(static_cast<double>(lab.d));
  lab.hist_hi = 4.0 * std::max(sd, 1.0);
  lab.hist_lo = -lab.hist_hi;
  constexpr int kBins = 41;
  lab.hist_raw.assign(kBins, 0.0f);
  lab.hist_scaled.assign(kBins, 0.0f);
  auto bin = [&](double v) {
    const double t = (v - lab.hist_lo) / (lab.hist_hi - lab.hist_lo);
    return std::clamp(static_cast<int>(t * kBins), 0, kBins - 1);
  };
  for (double v : lab.dots) {
    lab.hist_raw[bin(v)] += 1.0f;
    lab.hist_scaled[bin(v / sd)] += 1.0f;
  }
  lab.scores = query_scores(lab.d, seed, kScaleLabKeys);
  lab.w_raw = softmax(lab.scores);
  std::vector<double> scaled = lab.scores;
  for (double& v : scaled) v /= sd;
  lab.w_scaled = softmax(scaled);
}

}  // namespace flashstep::ui
