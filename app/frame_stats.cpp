#include "app/frame_stats.h"

#include "app/gui.h"
#include "app/ui/model/app_state.h"
#include "core/algorithms.h"
#include "core/scenario.h"

#include <epoxy/gl.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace flashstep {

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// CPU time of the whole process: with llvmpipe the rasteriser's threads are ours, and count.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// The background recordings bench_step has started, and how long those that ended took.
struct BenchRecordings {
  int started = 0, ended = 0;
  double started_ms = 0, total_ms = 0;
};
BenchRecordings& bench_recordings() {
  static BenchRecordings b;
  return b;
}

}  // namespace

void bench_setup(ui::AppState& app, const GuiOptions& opt) {
  if (!takes_qkv(app.inputs.algorithm)) return;  // N and d set the size
  app.inputs.N = opt.bench_n;
  app.inputs.d = opt.bench_d;
  app.inputs.blocks = ui::BlockChoice::from_sram;
  app.inputs.M = 4096;
  app.inputs_changed();
  app.seek(0);
}

void bench_step(ui::AppState& app) {
  ui::Timeline& tl = app.timeline;
  if (tl.playhead() + 1 >= tl.count()) tl.first();
  else tl.step(1);
  app.sync_cursor();
  const ui::GpuBackend& gpu = ui::gpu_backend();
  if (app.inputs_in_use().backend != ui::Backend::gpu || !gpu.record_background || app.job.busy()) return;
  BenchRecordings& b = bench_recordings();
  if (b.started > b.ended) {
    ++b.ended;
    b.total_ms += now_ms() - b.started_ms;
  }
  Scenario s = ui::scenario_from(app.inputs_in_use());
  if (!takes_qkv(s.algorithm)) return;
  s.n = kBenchRecordN;
  s.q.clear();
  s.k.clear();
  s.v.clear();
  s.block_rows = s.block_cols = 0;
  s.sram = 0;  // the default M
  // Ticket 0 is none of the window's (AppState counts from 1): tick() drops the result.
  app.job.start(resolve(s), 0, gpu.record_background);
  ++b.started;
  b.started_ms = now_ms();
}

FrameStats::FrameStats(int frames) : bench_frames(frames) {
  if (bench_frames <= 0) return;
  frame_start_ = now_ms();
  frame_cpu_ = process_cpu_ms();
}

void FrameStats::build_started() {
  if (bench_frames > 0) draw_start_ = now_ms();
}

void FrameStats::build_done() {
  if (bench_frames > 0) draw_end_ = now_ms();
}

void FrameStats::raster_done() {
  if (bench_frames <= 0) return;
  glFinish();
  render_end_ = now_ms();
}

bool FrameStats::frame_done(int frames, bool recording) {
  if (bench_frames <= 0) return false;
  // The second glFinish puts what the swap and the exports queued into this frame, not the next.
  glFinish();
  const double end = now_ms(), end_cpu = process_cpu_ms();
  if (frames > kBenchWarmupFrames) {
    total_ms.push_back(end - frame_start_);
    if (recording) ++recording_frames;
    draw_ms.push_back(draw_end_ - draw_start_);
    render_ms.push_back(render_end_ - draw_end_);
    cpu_ms.push_back(end_cpu - frame_cpu_);
    const ImDrawData* dd = ImGui::GetDrawData();
    vertices = dd->TotalVtxCount;
    commands = 0;
    for (int i = 0; i < dd->CmdListsCount; ++i) commands += dd->CmdLists[i]->CmdBuffer.Size;
  }
  frame_start_ = end;
  frame_cpu_ = end_cpu;
  return frames >= bench_frames + kBenchWarmupFrames;
}

void FrameStats::print(const ui::AppState& app, const GuiOptions& opt, const char* renderer) const {
  if (total_ms.empty()) return;
  auto stat = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
  };
  auto mean_of = [](const std::vector<double>& v) {
    double m = 0;
    for (double t : v) m += t;
    return m / static_cast<double>(v.size());
  };
  const double mean = mean_of(total_ms), draw = mean_of(draw_ms), render = mean_of(render_ms);
  const Recording& rec = *app.played.rec;
  std::printf("bench: lesson %s (%s backend), N = %d, d = %d, Br = %d, Bc = %d, %d steps, %dx%d, %zu frames\n",
              app.current_lesson().id.c_str(), rec.backend.c_str(), rec.n, rec.d, rec.Br, rec.Bc,
              rec.step_count(), opt.width, opt.height, total_ms.size());
  std::printf("bench: renderer %s; %lld vertices in %lld draw calls per frame\n", renderer, vertices,
              commands);
  std::printf("bench: frame time mean %.2f ms, median %.2f ms, p95 %.2f ms, max %.2f ms\n", mean,
              stat(total_ms, 0.5), stat(total_ms, 0.95), stat(total_ms, 1.0));
  std::printf("bench: CPU time of this process (all threads, llvmpipe's included) per frame mean "
              "%.2f ms, median %.2f ms\n", mean_of(cpu_ms), stat(cpu_ms, 0.5));
  std::printf("bench: of which building the ImGui frame %.2f ms, rasterising it (to glFinish) %.2f ms, "
              "presenting the rest\n", draw, render);
  if (recording_frames > 0) {
    const BenchRecordings& b = bench_recordings();
    std::printf("bench: a background recording (GPU: attn N = %d) ran during %d of the %zu frames; %d "
                "ended, in %.1f s each on average\n",
                kBenchRecordN, recording_frames, total_ms.size(), b.ended,
                b.ended > 0 ? b.total_ms / b.ended / 1e3 : 0.0);
  }
  // One line for scripts (bench/run_frame_bench.sh).
  std::printf("bench-result wall_mean=%.2f wall_median=%.2f wall_p95=%.2f wall_max=%.2f cpu_mean=%.2f "
              "cpu_median=%.2f build=%.2f raster=%.2f vertices=%lld calls=%lld frames=%zu Br=%d Bc=%d "
              "steps=%d recording_frames=%d recordings_ended=%d recording_s=%.1f\n",
              mean, stat(total_ms, 0.5), stat(total_ms, 0.95), stat(total_ms, 1.0), mean_of(cpu_ms),
              stat(cpu_ms, 0.5), draw, render, vertices, commands, total_ms.size(), rec.Br, rec.Bc,
              rec.step_count(), recording_frames, bench_recordings().ended,
              bench_recordings().ended > 0 ? bench_recordings().total_ms / bench_recordings().ended / 1e3 : 0.0);
}

}  // namespace flashstep
