// The Measure lab's runs on a worker thread and the speed-up sentence: no ImGui (the model
// library, tested without a window); lab_measure.cpp draws them.
#include "app/ui/labs/lab_measure.h"

#include "app/ui/model/record_job.h"
#include "core/algorithms.h"
#include "core/text.h"

#include <cctype>
#include <stdexcept>

#include <cstdint>
#include <string>

namespace flashstep::ui {

MeasureLab::~MeasureLab() { stop_measure(*this); }

void stop_measure(MeasureLab& lab) {
  lab.cancel = true;
  if (lab.worker.joinable()) lab.worker.join();
  lab.running = false;
}

MeasurePlan measure_plan(const MeasureLab& lab) {
  MeasurePlan plan;
  plan.attention_n.clear();
  for (int e = kMeasureMinLog2; e <= lab.max_attention_log2; ++e) plan.attention_n.push_back(std::int64_t{1} << e);
  plan.d = lab.d;
  // The GPU backend records on its own thread and context: the worker waits for it.
  if (measure_gpu_wanted(lab)) {
    const GpuBackend backend = gpu_backend();
    // What the GPU cannot run (S too large for one buffer, a driver's loop limit) it refuses with
    // the reason, which the point shows.
    plan.gpu_time_ms = [backend](const Resolved& r, const std::atomic<bool>* cancel) {
      RecordOptions opt;
      opt.keep_steps = false;
      opt.cancel = cancel;
      return backend.record_background(r, opt).gpu_ms;
    };
  }
  return plan;
}

void start_measure(MeasureLab& lab) {
  stop_measure(lab);
  {
    std::lock_guard<std::mutex> lock(lab.mutex);
    lab.points.clear();
  }
  const MeasurePlan plan = measure_plan(lab);
  lab.cancel = false;
  lab.progress = 0.0f;
  lab.running = true;
  lab.worker = std::thread([&lab, plan] {
    measure(plan, &lab.cancel, [&lab](const MeasurePoint& p, float progress) {
      std::lock_guard<std::mutex> lock(lab.mutex);
      lab.points.push_back(p);
      lab.progress = progress;
    });
    lab.running = false;
  });
}

void measure_now(MeasureLab& lab) {
  stop_measure(lab);
  MeasurePlan plan = measure_plan(lab);
  plan.gpu_time_ms = nullptr;
  std::vector<MeasurePoint> points;
  measure(plan, nullptr, [&points](const MeasurePoint& p, float) { points.push_back(p); });
  std::lock_guard<std::mutex> lock(lab.mutex);
  lab.points = std::move(points);
  lab.progress = 1.0f;
}

std::string set_measure_sizes(MeasureLab& lab, int largest_n, int d) {
  if (largest_n != 0) {
    int e = kMeasureMinLog2;
    while (e < kMeasureMaxLog2 && (1 << e) < largest_n) ++e;
    if ((1 << e) != largest_n)
      return "--measure-n " + std::to_string(largest_n) + ": the largest N of Measure it yourself is a power of two from " +
             std::to_string(1 << kMeasureMinLog2) + " to " + std::to_string(1 << kMeasureMaxLog2);
    lab.max_attention_log2 = e;
  }
  if (d != 0) {
    if (d != 64 && d != 128) return "--measure-d " + std::to_string(d) + ": Measure it yourself times d = 64 or 128";
    lab.d = d;
  }
  return "";
}

std::string size_text(std::int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= (1 << 14) && n % (1 << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

bool measure_gpu_available() { return gpu_backend() && static_cast<bool>(gpu_backend().record_background); }

bool software_renderer(const std::string& device) {
  std::string d;
  for (char ch : device) d += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* name : {"llvmpipe", "softpipe", "swiftshader", "swrast", "software", "lavapipe"})
    if (d.find(name) != std::string::npos) return true;
  return false;
}

bool measure_gpu_by_default() { return measure_gpu_available() && !software_renderer(gpu_backend().device); }

bool measure_gpu_wanted(const MeasureLab& lab) {
  return measure_gpu_available() && lab.gpu.value_or(measure_gpu_by_default());
}

std::string figure_text(double value, const char* unit, std::int64_t n, bool attention) {
  return (value >= 100 ? strf("%.0f", value) : num(value, 3)) + " " + unit + " at " + (attention ? "N" : "n") +
         " = " + size_text(n);
}

std::string speedup_text(const std::vector<MeasurePoint>& points, Algorithm slow, Algorithm fast, bool gpu) {
  std::int64_t best_n = 0;
  double ratio = 0;
  for (const MeasurePoint& a : points) {
    if (a.algorithm != slow || a.skipped || a.gpu != gpu) continue;
    for (const MeasurePoint& b : points)
      if (b.algorithm == fast && b.gpu == gpu && !b.skipped && b.n == a.n && a.n > best_n && b.time_ms > 0) {
        best_n = a.n;
        ratio = a.time_ms / b.time_ms;
      }
  }
  if (!best_n) return "";
  // A ratio below 1 is a slowdown, said as such rather than as "0.4x faster"; at N, attention's
  // sequence length, or n, softmax's, as the plots' labels name them.
  const char* size = takes_qkv(slow) ? "N" : "n";
  return ratio >= 1 ? strf("%.2fx faster at %s = %s", ratio, size, size_text(best_n).c_str())
                    : strf("%.2fx slower at %s = %s", 1 / ratio, size, size_text(best_n).c_str());
}

}  // namespace flashstep::ui
