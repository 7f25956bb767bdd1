// GPU recordings in the window go to a worker thread with its own context, which shares the
// window's objects (app/gpu_worker.h): the UI thread returns at once and keeps ticking, Cancel
// keeps the recording shown, and what arrives is what a recording on the window's own context
// gives. Needs a display (Xvfb in ./build.sh test): the window is a hidden GLFW window.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/export/export_job.h"
#include "app/gpu_worker.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "core/algorithms.h"
#include "core/scenario_json.h"
#include "gpu/context.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cmath>
#include <memory>
#include <string>
#include <thread>

using namespace flashstep;
using namespace flashstep::ui;

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The window: a hidden GLFW window with an OpenGL 4.3 core context, current on this thread,
// and its GPU backend, as app/gui.cpp sets them up. One per test process (made on first use), as
// a window has one for its life; it ends at the process's exit, after the other tests' contexts
// (the off-screen renderer's) have gone, which must leave it and its worker alone. GLFW is
// counted as the window counts it (gpu::acquire_glfw).
struct TestWindow {
  GLFWwindow* handle = nullptr;
  bool glfw = false;
  std::unique_ptr<WindowGpu> gpu;
  GpuBackend backend;  // what the window registered, registered again for each test
  std::string note, error;
  TestWindow() {
    glfw = gpu::acquire_glfw();
    if (!glfw) {
      const char* why = nullptr;
      glfwGetError(&why);
      error = std::string("no display for the window (run under Xvfb): ") + (why ? why : "?");
      return;
    }
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    handle = glfwCreateWindow(64, 64, "flashstep test", nullptr, nullptr);
    if (!handle) {
      error = "no OpenGL 4.3 window";
      return;
    }
    glfwMakeContextCurrent(handle);
    gpu = std::make_unique<WindowGpu>(handle, note);
    if (!gpu->available() || !gpu->background()) error = "no GPU backend with a worker: " + note;
    backend = gpu_backend();
    set_gpu_backend({});
  }
  ~TestWindow() {
    set_gpu_backend(backend);  // as the window leaves it: WindowGpu unregisters it
    gpu.reset();
    if (handle) glfwDestroyWindow(handle);
    if (glfw) gpu::release_glfw();
  }
};

// The window's GPU backend is registered for the test that asks for it, and only then: the
// other tests of the process (off-screen renders, whose context is not the window's) record
// as they do in a process without a window.
struct Window {
  Window() {
    static TestWindow w;
    REQUIRE_MESSAGE(w.error.empty(), w.error);
    set_gpu_backend(w.backend);
  }
  ~Window() { set_gpu_backend({}); }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

// The attention lesson on the GPU at N x d, tiles from M = 4096 as in the frame benchmark: a few
// seconds on llvmpipe at N = 256.
void ask_gpu(AppState& app, int N, int d, int seed) {
  app.inputs.backend = Backend::gpu;
  app.inputs.N = N;
  app.inputs.d = d;
  app.inputs.blocks = BlockChoice::from_sram;
  app.inputs.M = 4096;
  app.inputs.seed = static_cast<std::uint64_t>(seed);
  app.inputs_changed();
}

// Ticks as the frame loop does while busy() holds; the number of ticks. The recording's length
// depends on the machine and on what else runs on it, so the whole wait has no deadline: only a
// recording whose progress (progress()) has not moved for kStallSeconds is taken as hung, and
// the wait gives up on it (the test's checks then fail). A GPU recording reports progress
// between its dispatches and while its steps are built.
constexpr double kStallSeconds = 120;
template <class Busy, class Progress>
int tick_while(AppState& app, Busy busy, Progress progress) {
  int ticks = 0;
  float seen = -1.0f;
  double moved = now_seconds();
  for (; busy(); ++ticks) {
    if (const float p = progress(); p != seen) {
      seen = p;
      moved = now_seconds();
    } else if (now_seconds() - moved > kStallSeconds) {
      MESSAGE("no progress for " << kStallSeconds << " s, stuck at " << p);
      break;
    }
    app.tick(0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ticks;
}

// Until the lesson's recording job has ended.
int tick_until_done(AppState& app) {
  return tick_while(app, [&] { return app.job.busy(); }, [&] { return app.job.progress(); });
}

bool same_number(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Everything a recording shows: steps, their sentences, every cell written, the results.
void check_same(const Recording& a, const Recording& b) {
  CHECK(a.backend == b.backend);
  CHECK(a.n == b.n);
  CHECK(a.d == b.d);
  REQUIRE(a.step_count() == b.step_count());
  for (int k = 0; k < a.step_count(); ++k) {
    const Step& sa = a.steps[static_cast<std::size_t>(k)];
    const Step& sb = b.steps[static_cast<std::size_t>(k)];
    if (sa.text != sb.text || sa.delta_end != sb.delta_end) {
      CAPTURE(k);
      CHECK(sa.text == sb.text);
      CHECK(sa.delta_end == sb.delta_end);
      return;
    }
  }
  REQUIRE(a.deltas.size() == b.deltas.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.deltas.size(); ++i)
    if (a.deltas[i].index != b.deltas[i].index || !same_number(a.deltas[i].value, b.deltas[i].value)) ++differ;
  CHECK(differ == 0);
  REQUIRE(a.output().rows() == b.output().rows());
  REQUIRE(a.output().cols() == b.output().cols());
  CHECK(a.output() == b.output());
  REQUIRE(a.m().size() == b.m().size());
  for (std::size_t i = 0; i < a.m().size(); ++i) {
    CHECK(same_number(a.m()[i], b.m()[i]));
    CHECK(same_number(a.l()[i], b.l()[i]));
  }
  CHECK(a.io.hbm_accesses() == b.io.hbm_accesses());
}

// The window's GPU backend with the background recording of one seed held at a gate before it
// reaches the worker, until open() (or a minute, so that a shell that waits for that recording
// fails the test instead of hanging it): a test then knows that the recording is still running
// when it looks, whatever the machine's speed or load. The window's backend is put back once the
// gated recording has ended (a cancelled one ends on its own thread).
class GatedBackend {
 public:
  explicit GatedBackend(std::uint64_t seed) : real_(gpu_backend()), gate_(std::make_shared<Gate>()) {
    set_gpu_backend(GpuBackend(real_.record, real_.unsupported, real_.device,
                               [real = real_, gate = gate_, seed](const Resolved& r, const RecordOptions& opt) {
                                 if (r.scenario.seed != seed) return real.record_background(r, opt);
                                 gate->started = true;
                                 struct Done {
                                   Gate& g;
                                   ~Done() { g.finished = true; }
                                 } done{*gate};
                                 {
                                   std::unique_lock<std::mutex> lock(gate->m);
                                   gate->cv.wait_for(lock, std::chrono::seconds(60), [&] { return gate->is_open; });
                                 }
                                 return real.record_background(r, opt);
                               }));
  }
  ~GatedBackend() {
    open();
    for (int i = 0; i < 12000 && gate_->started.load() && !gate_->finished.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    set_gpu_backend(real_);
  }
  GatedBackend(const GatedBackend&) = delete;
  GatedBackend& operator=(const GatedBackend&) = delete;

  void open() {
    {
      std::lock_guard<std::mutex> lock(gate_->m);
      gate_->is_open = true;
    }
    gate_->cv.notify_all();
  }
  bool started() const { return gate_->started.load(); }
  bool finished() const { return gate_->finished.load(); }

 private:
  struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool is_open = false;
    std::atomic<bool> started{false}, finished{false};
  };
  GpuBackend real_;
  std::shared_ptr<Gate> gate_;
};

}  // namespace

TEST_CASE("gpu recording: started from the window it returns at once and the UI keeps ticking, and what arrives equals a recording on the window's own context") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("attn-tiled"));
  const auto before = app.played.rec;

  {
    // Held at a gate until the UI has ticked: inputs_changed must return, and the UI tick, while
    // the recording has not ended, however fast the machine records.
    GatedBackend gated(11);
    ask_gpu(app, kMaxAttentionN, 64, 11);
    // Not recorded on this thread: the recording shown is still the CPU one, and a job runs.
    REQUIRE(app.job.busy());
    CHECK_FALSE(gated.finished());
    CHECK(app.played.rec == before);
    CHECK(app.input_error.empty());
    for (int i = 0; i < 20; ++i) app.tick(0.0);
    CHECK(app.job.busy());
    CHECK_FALSE(gated.finished());
    CHECK(app.played.rec == before);
    gated.open();
    const int ticks = tick_until_done(app);
    REQUIRE_FALSE(app.job.busy());
    MESSAGE("the recording arrived after " << ticks << " more ticks");
  }
  REQUIRE(app.played.rec != before);
  CHECK(app.played.rec->backend == "gpu");
  CHECK(app.played.rec->n == kMaxAttentionN);
  CHECK(app.inputs_in_use().backend == Backend::gpu);

  // The synchronous path (the window's context, on this thread) gives the same recording.
  const Recording sync = gpu_backend().record(resolve(app.scenario), {});
  check_same(*app.played.rec, sync);
}

TEST_CASE("gpu recording: Cancel stops a GPU recording and leaves the previous recording in place") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("attn-tiled"));
  ask_gpu(app, 64, 16, 3);  // a first GPU recording, to be kept
  tick_until_done(app);
  const auto kept = app.played.rec;
  REQUIRE(kept->backend == "gpu");
  const Inputs kept_inputs = app.inputs_in_use();

  ask_gpu(app, 256, 64, 4);
  REQUIRE(app.job.active());
  app.cancel_recording();
  CHECK_FALSE(app.job.active());  // the status bar's progress bar and Cancel go at once
  tick_until_done(app);
  CHECK(app.played.rec == kept);
  CHECK(app.inputs_in_use() == kept_inputs);
  CHECK(app.input_error.find("cancelled") != std::string::npos);
  bool logged = false;
  for (const LogEntry& e : app.log) logged |= e.text.find("Recording cancelled") != std::string::npos;
  CHECK(logged);

  // The worker is free again: the next recording arrives.
  ask_gpu(app, 64, 16, 5);
  tick_until_done(app);
  CHECK(app.played.rec != kept);
  CHECK(app.played.rec->backend == "gpu");
}

TEST_CASE("gpu recording: newer inputs replace a running GPU recording without waiting for it, and only the newer one is shown") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("attn-tiled"));
  // The first recording is held at a gate before it reaches the worker, so that it is certainly
  // still running when the newer inputs arrive, whatever the machine's speed or load.
  GatedBackend gated(6);
  ask_gpu(app, 256, 64, 6);
  REQUIRE(app.job.active());
  ask_gpu(app, 128, 64, 7);  // the first is still recording: it is cancelled, not waited for
  CHECK_FALSE(gated.finished());
  REQUIRE(app.job.active());
  gated.open();
  tick_until_done(app);
  REQUIRE(app.played.rec->n == 128);
  CHECK(app.scenario.seed == 7);
  CHECK(app.input_error.empty());
  const Recording sync = gpu_backend().record(resolve(app.scenario), {});
  check_same(*app.played.rec, sync);
}

TEST_CASE("gpu recording: without background recording the window records on the GPU at once, as exports do") {
  Window w;
  AppState app;
  app.background_allowed = false;
  REQUIRE(app.open_lesson("attn-tiled"));
  ask_gpu(app, 64, 16, 8);
  CHECK_FALSE(app.job.busy());
  CHECK(app.played.rec->backend == "gpu");
  CHECK(app.played.rec->n == 64);
}

TEST_CASE("gpu recording: a scenario file on the GPU is recorded on the worker and opens at its playhead when the recording arrives") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("online"));
  ScenarioDocument doc;
  doc.lesson = "attn-tiled";
  doc.backend = "gpu";
  doc.playhead = 5;
  doc.scenario.algorithm = Algorithm::attn_tiled;
  doc.scenario.n = 64;
  doc.scenario.d = 16;
  doc.scenario.sram = 256;
  std::string error;
  REQUIRE(apply_document(app, doc, error));
  CHECK(error.empty());
  CHECK(app.job.busy());
  tick_until_done(app);
  REQUIRE(app.played.rec->backend == "gpu");
  CHECK(app.played.rec->n == 64);
  CHECK(app.timeline.playhead() == 5);
  CHECK(app.inputs_in_use().backend == Backend::gpu);
}

TEST_CASE("gpu recording: Compare records its GPU side off the UI thread and shows the pair when both have arrived") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("cpu-vs-gpu"));
  REQUIRE(app.tab == Tab::compare);
  REQUIRE(app.compare.backend_b == Backend::gpu);
  app.tick(0.0);  // the frame before the first draw records the comparison
  CHECK(app.compare.recording());
  CHECK(app.compare.right.rec->step_count() == 0);  // nothing shown yet: the previous (empty) pair
  tick_while(app, [&] { return app.compare.recording() || app.job.busy(); },
             [&] { return app.compare.progress() + app.job.progress(); });
  CHECK(app.compare.error.empty());
  REQUIRE(app.compare.right.rec->step_count() > 0);
  CHECK(app.compare.right.rec->backend == "gpu");
  CHECK(app.compare.left.rec->backend == "cpu");
  CHECK(app.compare.timeline.count() == std::max(app.compare.left.rec->step_count(), app.compare.right.rec->step_count()));

  // Cancel keeps the pair shown.
  const auto right = app.compare.right.rec;
  app.inputs.seed = 99;
  app.inputs_changed();
  app.tick(0.0);
  REQUIRE(app.compare.recording());
  app.cancel_compare();
  CHECK_FALSE(app.compare.recording());
  for (int i = 0; i < 200; ++i) {
    app.tick(0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(app.compare.right.rec == right);
  CHECK(app.compare.error.empty());
}

TEST_CASE("gpu recording: an animation of the Compare tab waits while its GPU side records") {
  Window w;
  AppState app;
  app.background_allowed = true;
  REQUIRE(app.open_lesson("attn-tiled"));  // on the CPU: recorded at once
  app.inputs.N = 256;
  app.inputs.d = 64;
  app.inputs.blocks = BlockChoice::from_sram;
  app.inputs.M = 4096;
  app.inputs_changed();
  REQUIRE_FALSE(app.job.busy());
  app.tab = Tab::compare;
  app.compare.a = app.compare.b = Algorithm::attn_tiled;
  app.compare.backend_b = Backend::gpu;
  app.compare.dirty = true;
  app.tick(0.0);
  REQUIRE(app.compare.recording());
  ExportRequest gif;
  gif.kind = ExportRequest::gif;
  gif.path = "/tmp/flashstep-test-compare.gif";
  CHECK(check_export(app, gif).find("still being made") != std::string::npos);
  tick_while(app, [&] { return app.compare.recording(); }, [&] { return app.compare.progress(); });
  app.tick(0.0);
  REQUIRE(app.compare.right.rec->backend == "gpu");
  CHECK(check_export(app, gif).find("still being made") == std::string::npos);
}
