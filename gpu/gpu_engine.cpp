#include "gpu/gpu_engine.h"

#include "core/algorithms.h"
#include "core/text.h"
#include "gpu/kernels.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <limits>

namespace flashstep::gpu {

// ---- Kernels ------------------------------------------------------------------------------

Kernels::Kernels() : limits_(query_limits()) {}

const Program& Kernels::program(const char* name, const Defines& defines) {
  std::string source = compose_source(name, defines);
  auto it = cache_.find(source);
  if (it == cache_.end()) {
    Program p = compile_compute(name, source);
    it = cache_.emplace(std::move(source), std::move(p)).first;
  }
  return it->second;
}

Buffer Kernels::buffer(const std::string& what, std::size_t bytes, const void* data,
                       const char* hint) const {
  if (static_cast<long long>(bytes) > limits_.max_storage_bytes)
    throw Unsupported(strf("%s needs %.1f MiB, more than this GPU's largest storage buffer "
                           "(%.1f MiB); %s",
                           what.c_str(), static_cast<double>(bytes) / (1 << 20),
                           static_cast<double>(limits_.max_storage_bytes) / (1 << 20), hint));
  return Buffer(bytes, data);
}

Defines common_defines(const Resolved& r, bool trace) {
  const char* prec = "PREC_FP32";
  if (r.scenario.precision == Precision::fp16) prec = "PREC_FP16";
  if (r.scenario.precision == Precision::bf16) prec = "PREC_BF16";
  return {{"PREC", prec},
          {"SCALED", r.scale != 1.0 ? "1" : "0"},
          {"CAUSAL", r.scenario.causal ? "1" : "0"},
          {"TRACE", trace ? "1" : "0"}};
}

float scale_of(const Resolved& r) {
  // Converted as the CPU engine converts it (from_double), so both multiply by the same number.
  return static_cast<float>(with_scalar(r.scenario.precision, [&](auto zero) {
    using T = decltype(zero);
    return to_double(from_double<T>(r.scale));
  }));
}

std::vector<float> to_floats(const MatrixRM& m) {
  std::vector<float> out(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.size(); ++i) out[static_cast<std::size_t>(i)] = static_cast<float>(m.data()[i]);
  return out;
}

void stopped_early(const std::string& what, const char* hint) {
  throw Unsupported(what + " stopped before the end of its work: this driver ends a shader's "
                    "loops early (llvmpipe does after 65535 iterations of one invocation); " + hint);
}

int merge_tree_nodes(int K) { return static_cast<int>(merge_tree(K).size()); }

// ---- Engine -------------------------------------------------------------------------------

Engine::Engine() {
  if (!has_current_context())
    throw GpuError("the GPU engine needs a current OpenGL context on this thread (create a "
                   "HiddenContext first)");
  info_ = gl_info();
  if (!info_.has_compute()) throw GpuError(needs_compute_message(info_));
  kernels_ = std::make_unique<Kernels>();
}

Engine::~Engine() = default;

namespace {

struct BigBuffer {
  double bytes = 0;
  const char* what = "";
  const char* hint = "";
};

// The largest storage buffer record(r) allocates (the kernels allocate exactly these).
BigBuffer largest_buffer(const Resolved& r, bool keep_steps) {
  const double rows = r.rows, n = r.n, d = r.d, N = r.n;
  auto trace = [&](double bytes, const char* what) {
    return BigBuffer{keep_steps ? bytes : 0.0, what, kTraceHint};
  };
  BigBuffer big{is_attention(r.scenario.algorithm) ? N * d * 4 : rows * n * 4, "the input",
                "use a smaller input"};
  auto take = [&](BigBuffer b) {
    if (b.bytes > big.bytes) big = b;
  };
  switch (r.scenario.algorithm) {
    case Algorithm::naive:
    case Algorithm::safe:
    case Algorithm::online:
    case Algorithm::logsumexp:
    case Algorithm::chunked: take(trace(rows * n * kTraceStrideBytes, "the step trace")); break;
    case Algorithm::attn_naive:
      take({N * N * 4, "S (N x N floats)", "attn-naive keeps S and P whole (the N^2 memory the "
                                           "lesson is about); use a smaller N or a tiled algorithm"});
      break;
    case Algorithm::attn_online:
      take(trace(N * N * (d + 5) * 4, "the step trace of attn-online (N x N x (d + 5) floats)"));
      break;
    case Algorithm::attn_tiled:
    case Algorithm::attn_tiled_v2:
      take(trace(N * N * 4, "the S trace (N x N floats)"));
      take(trace(static_cast<double>(r.Tc) * N * d * 4, "the O trace (Tc x N x d floats)"));
      break;
  }
  return big;
}

}  // namespace

std::string Engine::unsupported(const Resolved& r, bool keep_steps) const {
  if (r.scenario.precision == Precision::fp64)
    return "the GPU backend computes in fp32 (fp16 and bf16 emulated), not fp64: GLSL has no "
           "double-precision exp() or log(). Use --backend cpu for fp64.";
  const Limits& lim = kernels_->limits();
  if (flashstep::info(r.scenario.algorithm).takes_workers) {
    const long long bytes = 2LL * merge_tree_nodes(r.chunks) * 4;
    if (bytes > lim.max_shared_bytes)
      return strf("chunked on the GPU keeps the (m, l) merge tree of n_w = %d workers in shared "
                  "memory: %lld bytes, more than this GPU's %lld; use fewer --chunks",
                  r.chunks, bytes, lim.max_shared_bytes);
  }
  if (flashstep::info(r.scenario.algorithm).takes_blocks) {
    const long long bytes = 2LL * r.Bc * r.d * 4;
    if (bytes > lim.max_shared_bytes)
      return strf("the K_j and V_j tiles (2 x Bc x d = 2 x %d x %d floats, %lld bytes) do not fit "
                  "in this GPU's shared memory (%lld bytes); use a smaller --block-cols or --sram",
                  r.Bc, r.d, bytes, lim.max_shared_bytes);
    const int most = std::min(lim.max_invocations, lim.max_group_size_x);
    if (r.Br > most)
      return strf("Br = %d rows need one invocation each in a workgroup, and this GPU allows %d; "
                  "use a smaller --block-rows",
                  r.Br, most);
  }
  const BigBuffer big = largest_buffer(r, keep_steps);
  if (big.bytes > static_cast<double>(lim.max_storage_bytes))
    return strf("%s needs %.1f MiB, more than this GPU's largest storage buffer (%.1f MiB); %s",
                big.what, big.bytes / (1 << 20), static_cast<double>(lim.max_storage_bytes) / (1 << 20),
                big.hint);
  return "";
}

Recording Engine::record(const Resolved& r, const RecordOptions& opt) {
  if (const std::string why = unsupported(r, opt.keep_steps); !why.empty()) throw Unsupported(why);
  // The same guard as the CPU engine: a recording too large for memory is refused up front.
  check_memory_budget(r, opt);
  // Cancel is honoured before the dispatches and, through the Recorder, while the traces become
  // steps; a dispatch under way runs to its end.
  if (opt.cancel && opt.cancel->load()) throw Cancelled();
  Recording rec = start_recording(r, "gpu", info_.renderer);
  Recorder recorder(rec, opt.keep_steps);
  prepare_recorder(recorder, r, opt);
  Kernels& k = *kernels_;
  switch (r.scenario.algorithm) {
    case Algorithm::naive: gpu_naive(k, r, recorder); break;
    case Algorithm::safe: gpu_safe(k, r, recorder); break;
    case Algorithm::online: gpu_online(k, r, recorder); break;
    case Algorithm::chunked: gpu_chunked(k, r, recorder); break;
    case Algorithm::logsumexp: gpu_logsumexp(k, r, recorder); break;
    case Algorithm::attn_naive: gpu_attn_naive(k, r, recorder); break;
    case Algorithm::attn_online: gpu_attn_online(k, r, recorder); break;
    case Algorithm::attn_tiled: gpu_attn_tiled(k, r, recorder); break;
    case Algorithm::attn_tiled_v2: gpu_attn_tiled_v2(k, r, recorder); break;
  }
  rec.nonfinite = rec.count_nonfinite_outputs();
  last_gpu_ms_ = k.timer().query_ms();
  last_wall_ms_ = k.timer().wall_ms();
  if (opt.progress) opt.progress->store(1.0f);
  return rec;
}

Recording record(const Resolved& r, const RecordOptions& opt) {
  Engine engine;
  return engine.record(r, opt);
}

}  // namespace flashstep::gpu
