// The GPU engine: every algorithm of the catalogue as OpenGL 4.3 compute shaders, recorded into
// the same Recording type as the CPU engine (core/engine.h).
//
// The shaders write their per-step state (m and l per row, each e^x, the S and P tiles, the
// partial O, which tiles ran) into trace buffers; the engine reads them back and turns them into
// Steps through the Recorder, in the algorithm's loop order. So a GPU Recording has the same
// buffers, passes, steps, (pass, tile, row) sequence and IO counters as the CPU one, and every
// number in it, and in its step texts, was computed on the GPU.
//
// Precision: fp32 natively; fp16 and bf16 emulated by rounding after every operation, as the
// CPU engine does, so overflow happens at the same x. fp64 is refused (GLSL has no
// double-precision exp() or log()). Differences from the CPU come only from the driver's exp()
// and log() and from summation order in fp32 matrix products.
//
//   auto ctx = flashstep::gpu::HiddenContext::create(error);   // or the app's own context
//   flashstep::gpu::Engine gpu;                                // compiles shaders as needed
//   Recording rec = gpu.record(resolve(scenario));
#pragma once

#include "core/engine.h"
#include "gpu/context.h"

#include <memory>
#include <string>
#include <vector>

namespace flashstep::gpu {

class Kernels;

// A part of a record()'s dispatches timed apart (attn-naive: each of its three kernels).
struct PhaseTime {
  std::string name;
  double gpu_ms = 0, wall_ms = 0;  // GL_TIMESTAMP queries; the wall clock between glFinish()es
};

class Engine {
 public:
  // Needs a current OpenGL >= 4.3 context on this thread, for the lifetime of the Engine.
  // Throws GpuError when there is none.
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs r's algorithm on the GPU. Throws Unsupported when this GPU cannot run it as asked (the
  // message says what to change), GpuError on a driver failure, Cancelled like the CPU engine.
  // heads > 1 (attention, summaries only): that many independent heads (core/heads.h), head 0
  // being r, all in the same dispatches: every attention shader's grid covers heads x blocks.
  // The recording holds them stacked.
  Recording record(const Resolved& r, const RecordOptions& opt = {}, int heads = 1);

  // Why record(r) with these keep_steps and heads would refuse for want of memory or shape, or
  // "" when it fits: an algorithm with no GPU engine, fp64, tiles or a merge tree larger than shared memory, more rows per Q
  // block than a workgroup may have, attn-naive's S and P of every head (2·H·N² floats) beyond
  // the GPU's memory, a buffer (S, P, a step trace) larger than the driver allows, several
  // heads with steps kept.
  std::string unsupported(const Resolved& r, bool keep_steps, int heads = 1) const;
  // Why record(r) would refuse because the driver ends long loops (Limits::loop_cap, measured by
  // a probe when the engine was made), or "": where the iterations one invocation must run are
  // known in advance and pass the cap. A driver without a cap refuses nothing here. A run the
  // count cannot foresee is still refused after it, when its shaders report unfinished work.
  std::string exceeds_loop_cap(const Resolved& r) const;

  // Time of the last record()'s compute dispatches, in milliseconds, without upload, read-back or
  // Recording construction: as the GPU's clock reports it (GL_TIME_ELAPSED), and on the wall
  // clock up to glFinish(). llvmpipe leaves compute work out of its timer queries (its
  // last_gpu_ms() is ~0); the wall clock is then the figure that means something.
  double last_gpu_ms() const { return last_gpu_ms_; }
  double last_wall_ms() const { return last_wall_ms_; }
  // The last record()'s phases where it times them apart (attn-naive: its three kernels, each
  // after a glFinish()), summed over its batches of heads; empty otherwise.
  std::vector<PhaseTime> last_phases() const;
  const GlInfo& info() const { return info_; }
  // The loop iterations after which this driver ends an invocation's loops, as a probe
  // dispatch measured them when the engine was made; 0 when it found no cap.
  long long loop_cap() const;

 private:
  std::unique_ptr<Kernels> kernels_;
  GlInfo info_;
  double last_gpu_ms_ = 0, last_wall_ms_ = 0;
};

// Whether algorithm a has a GPU engine: a row in the GPU table (gpu/kernels.h). Core's row says
// the same by its `gpu` flag; Engine::record() refuses an algorithm without one.
bool has_gpu_engine(Algorithm a);

// One-shot: an Engine for a single recording (shaders compiled anew).
Recording record(const Resolved& r, const RecordOptions& opt = {});

}  // namespace flashstep::gpu
