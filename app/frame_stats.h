// --bench-frames: the window plays a lesson one step per frame, as fast as it can, and prints
// what each frame cost. bench/run_frame_bench.sh reads the "bench-result" line, so that line's
// format is an interface: change it only together with the script.
//
// A frame is measured in three parts, marked by the frame loop (app/gui.cpp):
//   build   building the ImGui frame (the panels) up to ImGui::Render();
//   raster  rasterising the draw data, up to glFinish;
//   the rest, presenting (swap) and the work between frames, up to a second glFinish.
#pragma once

#include <vector>

namespace flashstep {

struct GuiOptions;
namespace ui {
class AppState;
}

// Puts an attention lesson at the benchmark's size (N × d, tiles of 16 from M = 4096).
void bench_setup(ui::AppState& app, const GuiOptions& opt);
// One step per frame, round and round: the cursor changes every frame. While the inputs shown
// are on the GPU (bench/gpu-recording.json) and the GPU backend records in the background, it
// also keeps a GPU recording of the shown algorithm at N = kBenchRecordN, d as shown, tiles from
// the default M, running the way the window runs one (a RecordJob whose thread waits for the
// GPU worker and its shared context), starting the next as soon as one ends. The window itself
// takes N <= 512 (app/ui/model/inputs.h); this recording is larger so that it lasts the whole
// measurement, and its result is dropped when it arrives (no ticket of the window's is its).
void bench_step(ui::AppState& app);
inline constexpr int kBenchRecordN = 2048;

// The first frames build the font atlas and the caches: not what a student sees.
inline constexpr int kBenchWarmupFrames = 10;

struct FrameStats {
  explicit FrameStats(int bench_frames);  // 0: not benchmarking, every mark does nothing

  void build_started();
  void build_done();
  void raster_done();  // waits for the GPU (glFinish)
  // After the frame is presented; `frames` counts them from 1; `recording`: a background
  // recording was running. True once the bench has all the frames it asked for.
  bool frame_done(int frames, bool recording = false);
  // The bench's summary on stdout (nothing when no frame was measured).
  void print(const ui::AppState& app, const GuiOptions& opt, const char* renderer) const;

  int bench_frames;
  std::vector<double> total_ms, draw_ms, render_ms, cpu_ms;
  long long vertices = 0, commands = 0;  // of the last frame
  int recording_frames = 0;  // measured frames during which a background recording ran

 private:
  double frame_start_ = 0, frame_cpu_ = 0, draw_start_ = 0, draw_end_ = 0, render_end_ = 0;
};

}  // namespace flashstep
