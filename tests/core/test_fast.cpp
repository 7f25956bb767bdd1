// The fast fp32 kernels against long-double references and against the recording engine.
#include "core/engine.h"
#include "core/fast.h"
#include "tests/core/reference.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

using namespace flashstep;

namespace {

// Standard-normal values with a few large outliers, so softmax is far from uniform.
std::vector<float> scores(std::int64_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> x(static_cast<std::size_t>(count));
  for (auto& v : x) v = normal(gen);
  for (std::int64_t i = 0; i < count; i += 97) x[static_cast<std::size_t>(i)] += 30.0f;
  return x;
}

MatRM<float> random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  MatRM<float> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}

std::vector<std::vector<double>> to_rows(const MatRM<float>& m) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(m.rows()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) rows[static_cast<std::size_t>(r)].push_back(m(r, c));
  return rows;
}

// Q, K, V as an attn-tiled-v2 scenario with scale 1/√d and the given blocks.
Scenario attention_scenario(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, bool causal, int Br,
                            int Bc) {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.q = to_rows(Q);
  s.k = to_rows(K);
  s.v = to_rows(V);
  s.scale_mode = ScaleMode::inv_sqrt_d;
  s.causal = causal;
  s.block_rows = Br;
  s.block_cols = Bc;
  return s;
}

// Every `step`-th float from `from` to `to` by bit pattern, appended to x (from's pattern the
// smaller: upward from +0, or downward from −0, where the patterns of negative floats grow with |x|).
void every_nth_float(float from, float to, std::uint32_t step, std::vector<float>& x) {
  std::uint32_t a, b;
  std::memcpy(&a, &from, 4);
  std::memcpy(&b, &to, 4);
  for (std::uint32_t u = a; u <= b; u += step) {
    float v;
    std::memcpy(&v, &u, 4);
    x.push_back(v);
  }
}

using SoftmaxKernel = void (*)(const float*, float*, std::int64_t, std::int64_t, float*, float*);

// Every fast softmax kernel by name, chunked with K = 3 (a part per thread and one more).
using NamedKernel = std::pair<const char*, std::function<void(const float*, float*, std::int64_t, std::int64_t, float*, float*)>>;
std::vector<NamedKernel> softmax_kernels() {
  return {{"safe", fast::softmax_safe},
          {"online", fast::softmax_online},
          {"chunked, K = 3", [](const float* x, float* y, std::int64_t rows, std::int64_t n, float* m, float* l) {
             fast::softmax_chunked(x, y, rows, n, 3, m, l);
           }}};
}

void check_softmax(SoftmaxKernel kernel, std::int64_t rows, std::int64_t n) {
  using tolerance::Exp;
  const auto x = scores(rows * n, static_cast<unsigned>(rows * 131 + n));
  std::vector<float> y(x.size()), m(static_cast<std::size_t>(rows)), l(m.size());
  kernel(x.data(), y.data(), rows, n, m.data(), l.data());
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::vector<double> row(x.begin() + r * n, x.begin() + (r + 1) * n);
    const auto want = ref::softmax(row);
    // m is the row max; l = sum exp(x - m), so m + log l is the log-sum-exp.
    long double max = -INFINITY;
    for (double v : row) max = std::fmax(max, v);
    // The online bound covers the safe kernel too (it has no rescales).
    // A long row is split across the threads, each an online pass, then merged.
    const tolerance::Bound b = tolerance::softmax_row(Algorithm::online, row, 1.0, Precision::fp32, Exp::cpu, fast::threads());
    CHECK(m[static_cast<std::size_t>(r)] == static_cast<float>(max));
    const float lse = m[static_cast<std::size_t>(r)] + std::log(l[static_cast<std::size_t>(r)]);
    CHECK(std::fabs(lse - ref::logsumexp(row)) <= b.lse);
    long double worst = 0;
    for (std::int64_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(want[static_cast<std::size_t>(i)] - y[static_cast<std::size_t>(r * n + i)]));
    CHECK(worst <= b.output);
  }
}

}  // namespace

TEST_CASE("the kernels' vector exp is within 1 ulp over fp32's range (1.5 without FMA), 0 at -inf, +inf above its top, NaN kept") {
  // Every 193rd float from −110 to 95 by bit pattern (about ten million, denormal results and
  // both ends of the range among them), against expl. One ulp is that of the float nearest the
  // exact value, 2^-149 for a denormal; an exact value past FLT_MAX must come out +∞.
  std::vector<float> x;
  every_nth_float(0.0f, 95.0f, 193, x);     // +0 up
  every_nth_float(-0.0f, -110.0f, 193, x);  // −0 down
  for (float v : {88.72283f, 88.72284f, 88.7229f, -87.33654f, -103.2789f, -103.9721f, -1e-30f, 1e-30f}) x.push_back(v);
  std::vector<float> y(x.size());
  fast::vector_exp(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  double worst = 0;
  float worst_at = 0;
  std::int64_t overflow_wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double exact = std::exp(static_cast<long double>(x[i]));
    if (static_cast<float>(exact) == INFINITY) {
      overflow_wrong += y[i] != INFINITY;
      continue;
    }
    const long double ulp = exact < 0x1p-126L ? 0x1p-149L : std::ldexp(1.0L, std::ilogb(exact) - 23);
    const double err = static_cast<double>(std::fabs(static_cast<long double>(y[i]) - exact) / ulp);
    if (err > worst) {
      worst = err;
      worst_at = x[i];
    }
  }
  MESSAGE("vector exp (" << fast::vector_floats() << " floats a vector): largest error " << worst << " ulp at "
                         << worst_at << ", " << x.size() << " arguments");
  // SSE2 (4 floats, no FMA) rounds the reduction's and the polynomial's products apart.
  CHECK(worst <= (fast::vector_floats() == 4 ? 1.5 : 1.0));
  CHECK(worst <= tolerance::exp_ulps(tolerance::Exp::cpu, 0));  // what the tolerances assume
  CHECK(overflow_wrong == 0);
  // The special values, and every lane of a vector alike (a short tail too).
  const std::vector<float> special = {-INFINITY, INFINITY, NAN, 0.0f, -0.0f, -1000.0f, 1000.0f, -104.0f, 89.0f};
  std::vector<float> e(special.size());
  fast::vector_exp(special.data(), e.data(), static_cast<std::int64_t>(special.size()));
  CHECK(e[0] == 0.0f);
  CHECK(e[1] == INFINITY);
  CHECK(std::isnan(e[2]));
  CHECK(e[3] == 1.0f);
  CHECK(e[4] == 1.0f);
  CHECK(e[5] == 0.0f);
  CHECK(e[6] == INFINITY);
  CHECK(e[7] == 0.0f);  // exp(−104) ≈ 6.8e-46, under half the least denormal
  CHECK(e[8] == INFINITY);
}

TEST_CASE("the sums' exp is within 1 ulp on [-87.33, 0] (1.5 without FMA), at most exp(-87.33) below it and at -inf, NaN kept") {
  // Every 97th float from −0 down to −110 by bit pattern, against expl.
  std::vector<float> x;
  every_nth_float(-0.0f, -110.0f, 97, x);
  for (float v : {0.0f, -87.33f, -87.3301f, -1000.0f, -INFINITY}) x.push_back(v);
  std::vector<float> y(x.size());
  fast::vector_exp_term(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  const long double floor_value = std::exp(static_cast<long double>(-87.33f));  // what it gives below −87.33
  double worst = 0;
  std::int64_t below = 0, below_wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < -87.33f) {
      ++below;
      // Under the clamp: from 0 to exp(−87.33) (to its own ulp), so 1 + y == 1 in fp32.
      below_wrong += !(y[i] >= 0.0f && y[i] <= floor_value * (1.0L + 0x1p-22L) && 1.0f + y[i] == 1.0f);
      continue;
    }
    const long double exact = std::exp(static_cast<long double>(x[i]));
    const long double ulp = exact < 0x1p-126L ? 0x1p-149L : std::ldexp(1.0L, std::ilogb(exact) - 23);
    worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(y[i]) - exact) / ulp));
  }
  MESSAGE("sums' exp: largest error " << worst << " ulp on [-87.33, 0], " << below << " arguments below");
  CHECK(worst <= (fast::vector_floats() == 4 ? 1.5 : 1.0));
  CHECK(below > 1000);
  CHECK(below_wrong == 0);
  // On [−87.33, 0] its values are vexp's, bit for bit: a row's sum does not depend on which of
  // the two its kernel takes.
  std::vector<float> plain(x.size());
  fast::vector_exp(x.data(), plain.data(), static_cast<std::int64_t>(x.size()));
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) differ += x[i] >= -87.33f && std::memcmp(&plain[i], &y[i], 4) != 0;
  CHECK(differ == 0);
  const std::vector<float> special = {NAN, 0.0f, -0.0f};
  std::vector<float> e(special.size());
  fast::vector_exp_term(special.data(), e.data(), static_cast<std::int64_t>(special.size()));
  CHECK(std::isnan(e[0]));
  CHECK(e[1] == 1.0f);
  CHECK(e[2] == 1.0f);
}

TEST_CASE("the output's exp is vexp itself at s = 1, and s·exp(x) within 1.5 ulp down through the subnormals (2 without FMA)") {
  // Every 97th float from −0 down to −110 by bit pattern, and the special values.
  std::vector<float> x;
  every_nth_float(-0.0f, -110.0f, 97, x);
  for (float v : {0.0f, -103.9f, -104.0f, -104.1f, -1000.0f, -INFINITY}) x.push_back(v);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  std::vector<float> plain(x.size()), scaled(x.size());
  fast::vector_exp(x.data(), plain.data(), n);
  fast::vector_exp_scaled(x.data(), scaled.data(), n, 1.0f);
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) differ += std::memcmp(&plain[i], &scaled[i], 4) != 0;
  CHECK(differ == 0);  // the score tiles' exponentials are vexp's, bit for bit
  // s = 1/l for l from 3 to the largest the kernels meet (a row of 2^63 ones at most: s ≥ 2^−75
  // is what the function asks).
  for (const float s : {1.0f / 3.0f, 0x1p-20f / 3.0f, 1.5f * 0x1p-75f}) {
    CAPTURE(s);
    fast::vector_exp_scaled(x.data(), scaled.data(), n, s);
    double worst = 0;
    std::int64_t subnormal = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const long double exact = std::exp(static_cast<long double>(x[i])) * s;
      const long double ulp = exact < 0x1p-126L ? 0x1p-149L : std::ldexp(1.0L, std::ilogb(exact) - 23);
      worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(scaled[i]) - exact) / ulp));
      subnormal += scaled[i] > 0.0f && scaled[i] < FLT_MIN;
    }
    MESSAGE("s·exp(x), s = " << s << ": largest error " << worst << " ulp, " << subnormal << " subnormal results");
    // vexp's bound and a product's rounding, as exp(x)·s computed apart: s in the coefficients
    // moves each rounding of the polynomial within its binade, by up to twice its share.
    CHECK(worst <= (fast::vector_floats() == 4 ? 2.0 : 1.5));
    CHECK(subnormal > 1000);
  }
  // A NaN with payload bits where the exponent's bits are built from stays NaN too.
  const std::uint32_t payload_bits = 0x7fc001ffu;
  float payload;
  std::memcpy(&payload, &payload_bits, 4);
  const std::vector<float> special = {NAN, payload, -INFINITY, 0.0f, -0.0f};
  std::vector<float> e(special.size());
  fast::vector_exp_scaled(special.data(), e.data(), static_cast<std::int64_t>(special.size()), 0.25f);
  CHECK(std::isnan(e[0]));
  CHECK(std::isnan(e[1]));
  CHECK(e[2] == 0.0f);
  CHECK(e[3] == 0.25f);
  CHECK(e[4] == 0.25f);
  fast::vector_exp_scaled(special.data() + 3, e.data(), 1, NAN);  // 1/l of a row whose l is NaN
  CHECK(std::isnan(e[0]));
}

TEST_CASE("fast safe and online softmax match the long-double reference") {
  // Short rows (parallel over rows), a long row (split across threads), sizes that are not
  // multiples of the vector width or the online block.
  for (const auto& shape : {std::pair<std::int64_t, std::int64_t>{7, 1000}, {3, 4097}, {1, 300001}, {1, 5}, {2, 1}}) {
    const std::int64_t rows = shape.first, n = shape.second;
    CAPTURE(rows);
    CAPTURE(n);
    check_softmax(fast::softmax_safe, rows, n);
    check_softmax(fast::softmax_online, rows, n);
  }
}

TEST_CASE("long rows in memory, read as streams, keep the NaN, -inf and +inf rules in every softmax kernel") {
  // Inputs past 1 MiB take the in-memory paths (kReadStreams parts, streaming stores): one row split
  // across the threads, two rows, and 80 rows of 4096, whose parts are whole vectors with no float
  // past them (the longer rows' parts are a skew short of whole pages, so floats are left after
  // them). The last row carries the case; the others must stay finite.
  using tolerance::Exp;
  struct Case {
    const char* name;
    std::function<void(std::vector<float>&)> make;
  };
  const std::vector<Case> cases = {
      {"-inf every 7th", [](std::vector<float>& r) { for (std::size_t i = 3; i < r.size(); i += 7) r[i] = -INFINITY; }},
      {"-inf in the first half",
       [](std::vector<float>& r) { std::fill(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(r.size() / 2), -INFINITY); }},
      {"only -inf", [](std::vector<float>& r) { std::fill(r.begin(), r.end(), -INFINITY); }},
      {"NaN in the third quarter", [](std::vector<float>& r) { r[r.size() * 5 / 8] = NAN; }},
      {"NaN last", [](std::vector<float>& r) { r.back() = NAN; }},
      {"+inf in the second quarter", [](std::vector<float>& r) { r[r.size() * 3 / 8] = INFINITY; }},
  };
  const auto kernels = softmax_kernels();
  for (const auto& shape : {std::pair<std::int64_t, std::int64_t>{1, 300001}, {2, 150011}, {80, 4096}}) {
    const std::int64_t rows = shape.first, n = shape.second;
    for (const Case& c : cases) {
      std::vector<float> x = scores(rows * n, 7);
      std::vector<float> row(x.end() - n, x.end());
      c.make(row);
      std::copy(row.begin(), row.end(), x.end() - n);
      for (const auto& named : kernels) {
        const char* kernel_name = named.first;
        const auto& kernel = named.second;
        CAPTURE(rows);
        CAPTURE(c.name);
        CAPTURE(kernel_name);
        std::vector<float> y(x.size()), m(static_cast<std::size_t>(rows)), l(m.size());
        kernel(x.data(), y.data(), rows, n, m.data(), l.data());
        // The rows before the last are untouched by its case.
        CHECK(std::all_of(m.begin(), m.end() - 1, [](float v) { return std::isfinite(v); }));
        CHECK(std::all_of(y.begin(), y.end() - n, [](float v) { return std::isfinite(v); }));
        const float* yr = y.data() + (rows - 1) * n;
        const float mr = m.back(), lr = l.back();
        const bool nan = std::any_of(row.begin(), row.end(), [](float v) { return std::isnan(v); });
        const bool pos_inf = std::any_of(row.begin(), row.end(), [](float v) { return v == INFINITY; });
        const bool only_neg_inf = std::all_of(row.begin(), row.end(), [](float v) { return v == -INFINITY; });
        const bool all_nan_out = std::all_of(yr, yr + n, [](float v) { return std::isnan(v); });
        if (nan) {
          CHECK(std::isnan(mr));
          CHECK(std::isnan(lr));
          CHECK(all_nan_out);
        } else if (pos_inf) {
          CHECK(mr == INFINITY);
          CHECK(std::isnan(lr));
          CHECK(all_nan_out);
        } else if (only_neg_inf) {
          CHECK(mr == -INFINITY);
          CHECK(lr == 0.0f);
          CHECK(all_nan_out);
        } else {
          // −∞ weighs exactly 0; the others are the softmax of the finite entries alone.
          std::vector<double> finite;
          std::int64_t zero_wrong = 0;
          for (std::int64_t i = 0; i < n; ++i) {
            if (row[static_cast<std::size_t>(i)] == -INFINITY) zero_wrong += yr[i] != 0.0f;
            else finite.push_back(row[static_cast<std::size_t>(i)]);
          }
          CHECK(zero_wrong == 0);
          const auto want = ref::softmax(finite);
          const tolerance::Bound b =
              tolerance::softmax_row(Algorithm::online, finite, 1.0, Precision::fp32, Exp::cpu, std::max(3, fast::threads()));
          CHECK(mr == static_cast<float>(*std::max_element(finite.begin(), finite.end())));
          CHECK(std::fabs(mr + std::log(lr) - ref::logsumexp(finite)) <= b.lse);
          long double worst = 0;
          std::size_t k = 0;
          for (std::int64_t i = 0; i < n; ++i)
            if (row[static_cast<std::size_t>(i)] != -INFINITY) worst = std::max(worst, std::fabs(want[k++] - yr[i]));
          CHECK(worst <= b.output);
        }
      }
    }
  }
}

TEST_CASE("softmax outputs down into the subnormals are within their own bound, element by element") {
  // exp(x_i − m)/l for x_i − m from 0 down past −104 (every 4093rd float by bit pattern), after
  // `zeros` entries at the max, so that 1/l is as small as 2^−20: the outputs fall through the
  // normal range into the subnormals and to 0, each checked against its own bound (tolerance.h
  // point 6, with 2 subnormal spacings), not against the row's largest. Rows in cache and in
  // memory (past 1 MiB: streams and streaming stores), one row split across the threads.
  std::vector<float> tail;
  every_nth_float(-0.0f, -110.0f, 4093, tail);
  const auto kernels = softmax_kernels();
  for (const std::int64_t zeros : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 20}) {
    std::vector<float> x(static_cast<std::size_t>(zeros), 3.5f);  // the max, m = 3.5
    for (float t : tail) x.push_back(3.5f + t);
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    const std::vector<double> row(x.begin(), x.end());
    const auto want = ref::softmax(row);
    std::vector<double> each;
    tolerance::softmax_row(Algorithm::online, row, 1.0, Precision::fp32, tolerance::Exp::cpu, std::max(3, fast::threads()),
                           &each);
    std::int64_t subnormal = 0;
    for (const auto& named : kernels) {
      const char* kernel_name = named.first;
      CAPTURE(zeros);
      CAPTURE(kernel_name);
      std::vector<float> y(x.size());
      named.second(x.data(), y.data(), 1, n, nullptr, nullptr);
      std::int64_t outside = 0;
      double worst = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const long double err = std::fabs(want[static_cast<std::size_t>(i)] - y[static_cast<std::size_t>(i)]);
        outside += err > each[static_cast<std::size_t>(i)];
        worst = std::max(worst, static_cast<double>(err / each[static_cast<std::size_t>(i)]));
        subnormal += y[static_cast<std::size_t>(i)] > 0.0f && y[static_cast<std::size_t>(i)] < FLT_MIN;
      }
      MESSAGE(std::string(kernel_name) << ", " << zeros << " at the max: largest error / its bound " << worst);
      CHECK(outside == 0);
    }
    CHECK(subnormal > 100);  // the subnormal outputs were there to check
  }
}

TEST_CASE("a long row's parts are whole vectors, leave little past them and lie at different offsets in their pages") {
  for (const std::int64_t vector : {4, 8, 16})
    for (std::int64_t n = 1; n < (std::int64_t{1} << 26); n = n * 3 + 7) {
      CAPTURE(vector);
      CAPTURE(n);
      const std::int64_t h = fast::stream_part_length(n, vector);
      CHECK(h % vector == 0);
      CHECK(h >= 0);
      CHECK(fast::kReadStreams * h <= n);
      CHECK(n - fast::kReadStreams * h < fast::kReadStreams * (1024 + 48 + vector));  // 1024 floats: a page
      if (n / fast::kReadStreams >= 2048) {
        // The parts' first floats (and so the floats read together) at offsets in their pages
        // at least a cache line apart.
        for (std::int64_t a = 0; a < fast::kReadStreams; ++a)
          for (std::int64_t b = a + 1; b < fast::kReadStreams; ++b) {
            const std::int64_t apart = ((b - a) * h * 4) % 4096;
            CHECK(std::min(apart, 4096 - apart) >= 64);
          }
      }
    }
}

TEST_CASE("long rows are read ahead by the distance chosen for the CPU, any distance and output offset give the same numbers, a bad one is refused") {
  CHECK(fast::read_ahead_floats_for("GenuineIntel") == 512);
  CHECK(fast::read_ahead_floats_for("AuthenticAMD") == 128);
  CHECK(fast::read_ahead_floats_for("") == 128);
  const std::string vendor = fast::cpu_vendor();
#if defined(__x86_64__) || defined(__i386__)
  CHECK(vendor.size() == 12);  // cpuid's leaf 0: twelve characters
#else
  CHECK(vendor.empty());
#endif
  const std::int64_t chosen = fast::read_ahead_floats();
  CHECK(chosen == fast::read_ahead_floats_for(vendor));
  for (const std::int64_t bad : {0, -16, 8, 24, 8208, 1 << 20}) {
    CAPTURE(bad);
    std::string message;
    try {
      fast::set_read_ahead_floats(bad);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    CHECK(message.find("read-ahead distance " + std::to_string(bad) + " floats") != std::string::npos);
    CHECK(fast::read_ahead_floats() == chosen);
  }
  // A long row in memory (more than 2^18 floats: read ahead, as streams, split across the threads)
  // with −∞ and a late new max, and rows read ahead by every kernel: the same bits at every distance.
  const std::int64_t n = (std::int64_t{1} << 19) + 37;
  std::vector<float> x = scores(n, 41);
  x[5] = -INFINITY;
  x[static_cast<std::size_t>(n - 3)] = 80.0f;
  using Kernel = std::function<void(const float*, float*, std::int64_t, std::int64_t, float*, float*)>;
  const std::vector<std::pair<const char*, Kernel>> kernels = {
      {"safe", [](auto... a) { fast::softmax_safe(a...); }},
      {"online", [](auto... a) { fast::softmax_online(a...); }},
      {"chunked", [](const float* in, float* out, std::int64_t rows, std::int64_t len, float* m, float* l) {
         fast::softmax_chunked(in, out, rows, len, 3, m, l);
       }}};
  for (const auto& entry : kernels) {
    const char* name = entry.first;
    const Kernel& kernel = entry.second;
    CAPTURE(name);
    std::vector<float> first(x.size()), y(x.size() + 16);
    float m0 = 0, l0 = 0;
    fast::set_read_ahead_floats(chosen);
    kernel(x.data(), first.data(), 1, n, &m0, &l0);
    for (const std::int64_t floats : {16, 128, 512, 8192})
      for (const std::size_t offset : {0, 3, 9}) {  // the output at other offsets in its cache lines
        CAPTURE(floats);
        CAPTURE(offset);
        fast::set_read_ahead_floats(floats);
        CHECK(fast::read_ahead_floats() == floats);
        float m = 0, l = 0;
        kernel(x.data(), y.data() + offset, 1, n, &m, &l);
        CHECK(std::memcmp(&m, &m0, 4) == 0);
        CHECK(std::memcmp(&l, &l0, 4) == 0);
        CHECK(std::memcmp(y.data() + offset, first.data(), first.size() * sizeof(float)) == 0);
      }
  }
  fast::set_read_ahead_floats(chosen);
}

TEST_CASE("fast chunked softmax matches the reference for any K") {
  const std::int64_t n = 10007;
  const auto x = scores(n, 5);
  const auto want = ref::softmax(std::vector<double>(x.begin(), x.end()));
  for (int K : {1, 2, 3, 7, 64}) {
    CAPTURE(K);
    std::vector<float> y(x.size());
    fast::softmax_chunked(x.data(), y.data(), 1, n, K);
    long double worst = 0;
    for (std::int64_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(want[static_cast<std::size_t>(i)] - y[static_cast<std::size_t>(i)]));
    const double limit = tolerance::softmax_row(Algorithm::chunked, std::vector<double>(x.begin(), x.end()), 1.0,
                                                Precision::fp32, tolerance::Exp::cpu, K)
                             .output;
    MESSAGE("chunked K = " << K << ": observed / limit " << static_cast<double>(worst) << " / " << limit);
    CHECK(worst <= limit);
  }
}

TEST_CASE("fast attention kernels match the reference and the recording engine") {
  for (const auto& shape : {std::pair<int, int>{257, 64}, {100, 32}, {33, 8}}) {
    const int N = shape.first, d = shape.second;
    for (bool causal : {false, true}) {
      CAPTURE(N);
      CAPTURE(d);
      CAPTURE(causal);
      const MatRM<float> Q = random_matrix(N, d, 1), K = random_matrix(N, d, 2), V = random_matrix(N, d, 3);
      const float scale = 1.0f / std::sqrt(static_cast<float>(d));
      const auto want = ref::attention(to_rows(Q), to_rows(K), to_rows(V), scale, causal);
      MatRM<float> O_naive, O_v2, O_v1;
      std::vector<float> lse;
      const Mask mask = Mask::causal_if(causal, N, N);
      fast::attention_naive(Q, K, V, scale, mask, O_naive);
      fast::attention_tiled_v2(Q, K, V, scale, mask, 16, 32, O_v2, &lse);
      fast::attention_tiled(Q, K, V, scale, mask, 32, 16, O_v1);
      long double worst_naive = 0, worst_v2 = 0, worst_v1 = 0;
      for (int i = 0; i < N; ++i)
        for (int c = 0; c < d; ++c) {
          worst_naive = std::max(worst_naive, std::fabs(want[i][c] - O_naive(i, c)));
          worst_v2 = std::max(worst_v2, std::fabs(want[i][c] - O_v2(i, c)));
          worst_v1 = std::max(worst_v1, std::fabs(want[i][c] - O_v1(i, c)));
        }
      // The same problem as a scenario: its bound for each kernel's loop structure.
      const Scenario s = attention_scenario(Q, K, V, causal, 16, 32);
      auto bound = [&](Algorithm a, int Br, int Bc) {
        Scenario t = s;
        t.algorithm = a;
        t.block_rows = Br;
        t.block_cols = Bc;
        return tolerance::of_run(resolve(t), tolerance::Exp::cpu);
      };
      const tolerance::Bound b_naive = bound(Algorithm::attn_naive, 16, 32), b_v2 = bound(Algorithm::attn_tiled_v2, 16, 32),
                             b_v1 = bound(Algorithm::attn_tiled, 32, 16);
      MESSAGE("observed / limit: naive " << static_cast<double>(worst_naive) << " / " << b_naive.output << ", v2 "
                                         << static_cast<double>(worst_v2) << " / " << b_v2.output << ", v1 "
                                         << static_cast<double>(worst_v1) << " / " << b_v1.output);
      CHECK(worst_naive <= b_naive.output);
      CHECK(worst_v2 <= b_v2.output);
      CHECK(worst_v1 <= b_v1.output);

      // Through the recording engine (fp32, summary only): both within their bound.
      const Recording rec = record(s, RecordOptions{false});
      float worst_engine = 0;
      for (int i = 0; i < N; ++i) {
        for (int c = 0; c < d; ++c)
          worst_engine = std::max(worst_engine, std::fabs(static_cast<float>(rec.output()(i, c)) - O_v2(i, c)));
        CHECK(std::fabs(lse[static_cast<std::size_t>(i)] - rec.lse()[static_cast<std::size_t>(i)]) <= 2.0 * b_v2.lse);
      }
      CHECK(worst_engine <= 2.0 * b_v2.output);
    }
  }
}

TEST_CASE("FA-2 with its own blocks and with each technique turned off matches the long-double reference") {
  const int N = 300, d = 64;  // 300 = 2 × 128 + 44: a short last block of rows and of keys
  const fast::KernelBlocks b = fast::kernel_blocks(N, d);
  using S = fast::TiledOptions::Schedule;
  std::vector<fast::TiledOptions> variants(8);
  variants[1].vector_exp = false;
  variants[2].fused_exp_sum = false;
  variants[3].lazy_rescale = false;
  variants[4].micro_kernels = false;
  variants[5].schedule = S::snake;
  variants[6].schedule = S::contiguous;
  variants[7] = {false, false, false, false, S::contiguous};
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const MatRM<float> Q = random_matrix(N, d, 11), K = random_matrix(N, d, 12), V = random_matrix(N, d, 13);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    const auto want = ref::attention(to_rows(Q), to_rows(K), to_rows(V), scale, causal);
    const tolerance::Bound bound =
        tolerance::of_run(resolve(attention_scenario(Q, K, V, causal, b.Br, b.Bc)), tolerance::Exp::cpu);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      CAPTURE(v);
      MatRM<float> O;
      std::vector<float> lse;
      fast::attention_tiled_v2(Q, K, V, scale, Mask::causal_if(causal, N, N), b.Br, b.Bc, O, &lse, nullptr, nullptr,
                               variants[v]);
      long double worst = 0;
      for (int i = 0; i < N; ++i)
        for (int c = 0; c < d; ++c) worst = std::max(worst, std::fabs(want[i][c] - O(i, c)));
      CHECK(worst <= bound.output);
    }
  }
}

TEST_CASE("the snake schedule gives every Q block to one thread and balances the causal mask's costs") {
  for (int T = 1; T <= 8; ++T)
    for (int Tr = 1; Tr <= 70; ++Tr) {
      CAPTURE(T);
      CAPTURE(Tr);
      std::vector<int> owner(static_cast<std::size_t>(Tr), -1);
      std::vector<long> cost(static_cast<std::size_t>(T), 0);  // block i costs i + 1 tiles under the mask
      for (int t = 0; t < T; ++t)
        for (int round = 0; round * T < Tr; ++round) {
          const int i = fast::snake_block(round, t, T, Tr);
          if (i < 0) continue;
          REQUIRE(i < Tr);
          CHECK(owner[static_cast<std::size_t>(i)] == -1);
          owner[static_cast<std::size_t>(i)] = t;
          cost[static_cast<std::size_t>(t)] += i + 1;
        }
      CHECK(std::count(owner.begin(), owner.end(), -1) == 0);
      // Full pairs of rounds, forwards then backwards, cost every thread the same; what is left
      // is fewer than 2T of the cheapest blocks (costs 1 … 2T), at most two for each thread.
      const long spread = *std::max_element(cost.begin(), cost.end()) - *std::min_element(cost.begin(), cost.end());
      CHECK(spread <= 2 * T);
    }
}

TEST_CASE("the kernel's own blocks fit half the L2 cache, leave every thread a Q block and stay within N") {
  // What a thread holds per tile step, counted here: the forward's Qᵢ, Oᵢ (Br × d), Kⱼ, Vⱼ
  // (Bc × d), Sᵢⱼ (Br × Bc); the flash backward's Qᵢ, dOᵢ, dQᵢ, Kⱼ, Vⱼ, dKⱼ, dVⱼ, Sᵢⱼ, Pᵢⱼ, dPᵢⱼ, dSᵢⱼ.
  // Q blocks of up to 256 rows in the forward, 128 in the backward; K/V blocks of up to 128.
  struct Held {
    const TileShape* tile;
    long long query, key, score;
    int most_rows;
  };
  for (const Held& h : {Held{&kForwardTile, 2, 2, 1, 256}, Held{&kFlashBackwardTile, 3, 4, 4, 128}})
    for (int N : {1, 7, 100, 1000, 4096, 100000})
      for (int d : {1, 8, 64, 128, 256, 1024}) {
        CAPTURE(N);
        CAPTURE(d);
        CAPTURE(h.key);
        const fast::KernelBlocks b = fast::kernel_blocks(N, d, *h.tile);
        CHECK(b.Br >= 1);
        CHECK(b.Bc >= 1);
        CHECK(b.Br <= std::min(N, h.most_rows));
        CHECK(b.Bc <= std::min(N, 128));
        CHECK(b.tile_bytes == static_cast<std::int64_t>(sizeof(float)) *
                                  (h.query * b.Br * d + h.key * b.Bc * d + h.score * b.Br * b.Bc));
        if (b.Br > 8 || b.Bc > 8) CHECK(b.tile_bytes <= b.l2_bytes / 2);
        if (b.Br > 16) CHECK((N + b.Br - 1) / b.Br >= fast::threads());
      }
}
