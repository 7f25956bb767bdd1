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

namespace flashstep::gpu {

class Kernels;

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
  Recording record(const Resolved& r, const RecordOptions& opt = {});

  // Why record(r) with these keep_steps would refuse, or "" when it can run: fp64, tiles or a
  // merge tree larger than shared memory, more rows per Q block than a workgroup may have, a
  // buffer (S, P, a step trace) larger than the driver allows.
  std::string unsupported(const Resolved& r, bool keep_steps) const;

  // Time of the last record()'s compute dispatches, in milliseconds, without upload, read-back or
  // Recording construction: as the GPU's clock reports it (GL_TIME_ELAPSED), and on the wall
  // clock up to glFinish(). llvmpipe leaves compute work out of its timer queries (its
  // last_gpu_ms() is ~0); the wall clock is then the figure that means something.
  double last_gpu_ms() const { return last_gpu_ms_; }
  double last_wall_ms() const { return last_wall_ms_; }
  const GlInfo& info() const { return info_; }

 private:
  std::unique_ptr<Kernels> kernels_;
  GlInfo info_;
  double last_gpu_ms_ = 0, last_wall_ms_ = 0;
};

// One-shot: an Engine for a single recording (shaders compiled anew).
Recording record(const Resolved& r, const RecordOptions& opt = {});

}  // namespace flashstep::gpu
