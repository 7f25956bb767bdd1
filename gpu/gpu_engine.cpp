#include "gpu/gpu_engine.h"

#include "core/algorithms.h"
#include "core/heads.h"
#include "core/initial_state.h"
#include "core/mask.h"
#include "core/peak_memory.h"
#include "core/text.h"
#include "gpu/kernels.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cctype>
#include <limits>

namespace flashstep::gpu {

// ---- Kernels ------------------------------------------------------------------------------

Kernels::Kernels() : limits_(query_limits()) { limits_.loop_cap = probe_loop_cap(); }

const Program& Kernels::program(const char* name, const Defines& defines) {
  // On a driver that caps loops (llvmpipe, whose LLVM took minutes on tile loops unrolled around
  // the loops over d), the tiles' loops stay loops (common.glsl: tile_extent).
  Defines all = defines;
  all.emplace_back("ROLLED_TILES", limits_.loop_cap > 0 ? "1" : "0");
  std::string source = compose_source(name, all);
  auto it = cache_.find(source);
  if (it == cache_.end()) {
    Program p = compile_compute(name, source);
    // Where every running (m, l) and accumulator starts (common.glsl's uniforms): set once,
    // as a program keeps its uniforms.
    p.use();
    p.set("m_init", static_cast<float>(initial_state().m));
    p.set("l_init", static_cast<float>(initial_state().l));
    p.set("o_init", static_cast<float>(initial_state().o));
    p.set("kNoBound", 0);  // tile_extent's hidden bound: min(B, left) + 0
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

const Kernels::HeadFloats& Kernels::head_floats(const Resolved& r, int h) {
  HeadCache& c = head_cache_;
  if (c.seed != r.scenario.seed || c.n != r.n || c.d != r.d || c.precision != r.scenario.precision) {
    c = HeadCache{r.scenario.seed, r.n, r.d, r.scenario.precision, {}};
  }
  if (c.heads.size() < static_cast<std::size_t>(h)) c.heads.resize(static_cast<std::size_t>(h));
  HeadFloats& f = c.heads[static_cast<std::size_t>(h) - 1];
  // Heads drawn for a row that takes no dO (a forward of the same seed and shape) have none: a
  // row that takes it draws the head again.
  if (f.q.empty() || (f.d_o.empty() && takes(r.scenario.algorithm, kInputDO))) {
    const Resolved head = resolve_head(r, h);
    f = {to_floats(head.q), to_floats(head.k), to_floats(head.v), to_floats(head.d_o)};
  }
  return f;
}

void Kernels::watch(const std::atomic<bool>* cancel, std::atomic<float>* progress, float share) {
  cancel_ = cancel;
  progress_ = progress;
  share_ = share;
}

void Kernels::dispatched(long long done, long long total) {
  if (progress_ && total > 0) {
    finish();
    progress_->store(share_ * static_cast<float>(std::min(done, total)) / static_cast<float>(total),
                     std::memory_order_relaxed);
  }
  if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled();
}

Defines common_defines(const Resolved& r, bool trace) {
  const char* prec = "PREC_FP32";
  if (r.scenario.precision == Precision::fp16) prec = "PREC_FP16";
  if (r.scenario.precision == Precision::bf16) prec = "PREC_BF16";
  Defines out = {{"PREC", prec},
                 {"SCALED", r.scale != 1.0 ? "1" : "0"},
                 {"MASK", std::to_string(static_cast<int>(Mask::of(r).kind()))},
                 {"TRACE", trace ? "1" : "0"}};
  // Every parameter declared since format 1 that the algorithm takes (core/params.h), as
  // PARAM_<KEY>: a shader that uses one needs nothing here.
  for (const auto& [key, value] : taken_params(r.scenario)) {
    std::string name = "PARAM_";
    for (char c : key) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.emplace_back(std::move(name), std::to_string(value));
  }
  return out;
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

void stopped_early(const Kernels& k, const std::string& what, const char* hint) {
  const long long cap = k.limits().loop_cap;
  if (cap > 0)
    throw Unsupported(what + strf(" stopped before the end of its work: this driver ends an invocation's "
                                  "loops after %lld iterations (measured at start-up); ", cap) + hint);
  // No loop cap, yet the counts fell short: on an NVIDIA H200 this happened to runs of about 12 s
  // and more (FA-1's too, which is one dispatch per K/V block), so the message says what was seen.
  throw Unsupported(what + strf(" stopped before the end of its work, though this driver has no loop cap (a "
                                "probe loop of %d iterations ran to its end); long runs end so on some "
                                "drivers (fewer heads make it shorter); ", kLoopProbeBound) + hint);
}

int merge_tree_nodes(int K) { return static_cast<int>(merge_tree(K).size()); }

double memory_bound(const Limits& lim) {
  return lim.memory_bytes > 0 ? static_cast<double>(lim.memory_bytes) : static_cast<double>(physical_memory_bytes());
}

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

// The GPU table (kernels.h): every family's rows.
std::vector<GpuRow> make_gpu_table() {
  std::vector<GpuRow> t;
  for (auto rows : {softmax_gpu_rows, chunked_gpu_rows, attention_gpu_rows, tiled_gpu_rows, backward_gpu_rows})
    for (GpuRow& row : rows()) t.push_back(row);
  return t;
}

// The largest storage buffer record(r) allocates for one head: its input, or the row's
// largest (the kernels allocate exactly these, or batches of several heads' that fit the
// driver's largest).
BigBuffer largest_buffer(const GpuRow& row, const Resolved& r, bool keep_steps) {
  const double inputs = static_cast<double>(std::max({r.x.size(), r.q.size(), r.k.size(), r.v.size(), r.d_o.size()}));
  BigBuffer big{inputs * 4, "the input", "use a smaller input"};
  const BigBuffer own = row.largest_buffer(r, keep_steps);
  return own.bytes > big.bytes ? own : big;
}

}  // namespace

const GpuRow* gpu_row(Algorithm a) {
  static const std::vector<GpuRow> table = make_gpu_table();
  for (const GpuRow& row : table)
    if (row.algorithm == a) return &row;
  return nullptr;
}

bool has_gpu_engine(Algorithm a) { return gpu_row(a) != nullptr; }

long long Engine::loop_cap() const { return kernels_->limits().loop_cap; }

std::vector<PhaseTime> Engine::last_phases() const {
  std::vector<PhaseTime> out;
  for (const GpuTimer::Phase& p : kernels_->timer().phases()) out.push_back({p.name, p.gpu_ms, p.wall_ms});
  return out;
}

std::string Engine::unsupported(const Resolved& r, bool keep_steps, int heads) const {
  const GpuRow* row = gpu_row(r.scenario.algorithm);
  if (!row) return no_gpu_engine(flashstep::info(r.scenario.algorithm));
  if (r.scenario.precision == Precision::fp64)
    return "the GPU backend computes in fp32 (fp16 and bf16 emulated), not fp64: GLSL has no "
           "double-precision exp() or log(). Use --backend cpu for fp64.";
  const Limits& lim = kernels_->limits();
  if (heads != 1) {
    if (keep_steps) return "several heads are run with --steps none only: the lessons' views show one head";
    try {
      check_heads(r, heads);
    } catch (const InputError& e) {
      return e.what();
    }
  }
  if (std::string why = row->refuses(r, lim, heads); !why.empty()) return why;
  const BigBuffer big = largest_buffer(*row, r, keep_steps);
  if (big.bytes > static_cast<double>(lim.max_storage_bytes))
    return strf("%s needs %.1f MiB, more than this GPU's largest storage buffer (%.1f MiB); %s",
                big.what, big.bytes / (1 << 20), static_cast<double>(lim.max_storage_bytes) / (1 << 20),
                big.hint);
  return "";
}

std::string Engine::exceeds_loop_cap(const Resolved& r) const {
  const GpuRow* row = gpu_row(r.scenario.algorithm);
  const long long cap = kernels_->limits().loop_cap;
  if (!row || cap <= 0) return "";
  const long long need = row->least_loop_iterations(r);
  if (need <= cap) return "";
  return strf("%s at N = %d needs at least %lld loop iterations in one shader invocation, and this "
              "driver ends an invocation's loops after %lld iterations (measured at start-up); %s",
              std::string(algorithm_id(r.scenario.algorithm)).c_str(), r.n, need, cap, row->loop_hint);
}

Recording Engine::record(const Resolved& r, const RecordOptions& opt, int heads) {
  if (const std::string why = unsupported(r, opt.keep_steps, heads); !why.empty()) throw Unsupported(why);
  if (const std::string why = exceeds_loop_cap(r); !why.empty()) throw Unsupported(why);
  // The same guard as the CPU engine: a recording too large for memory is refused up front.
  check_memory_budget(r, opt);
  // Cancel is honoured before the dispatches, between them (Kernels::dispatched) and, through
  // the Recorder, while the traces become steps; a dispatch under way runs to its end.
  if (opt.cancel && opt.cancel->load()) throw Cancelled();
  // One recording per head (summaries only when there are several), stacked at the end.
  std::vector<Recording> recs;
  std::vector<Recorder> recorders;
  recs.reserve(static_cast<std::size_t>(heads));
  recorders.reserve(static_cast<std::size_t>(heads));
  // The progress: the dispatches up to kDispatchShare, then the steps built from their traces.
  const float share = opt.keep_steps ? kDispatchShare : 1.0f;
  for (int h = 0; h < heads; ++h) {
    recs.push_back(start_recording(r, "gpu", info_.renderer));
    recorders.emplace_back(recs.back(), opt.keep_steps);
    prepare_recorder(recorders.back(), r, opt);
    if (opt.keep_steps) recorders.back().watch(opt.cancel, opt.progress, estimate_recording(r).steps, share);
  }
  std::vector<Recorder*> each;
  for (Recorder& one : recorders) each.push_back(&one);
  Kernels& k = *kernels_;
  k.watch(opt.cancel, opt.progress, share);
  struct Unwatch {
    Kernels& k;
    ~Unwatch() { k.watch(nullptr, nullptr, 0.0f); }
  } unwatch{k};
  gpu_row(r.scenario.algorithm)->record(k, r, each);  // unsupported() refused an algorithm without a row
  for (Recording& one : recs) one.nonfinite = one.count_nonfinite_outputs();
  Recording rec = heads == 1 ? std::move(recs.front()) : stack_heads(std::move(recs));
  last_gpu_ms_ = k.timer().query_ms();
  last_wall_ms_ = k.timer().wall_ms();
  // The GPU's own clock, unless it saw less than a tenth of the wall clock: then the driver's
  // queries leave compute work out (llvmpipe), and the wall clock is the figure that means something.
  rec.gpu_ms = last_gpu_ms_ >= 0.1 * last_wall_ms_ ? last_gpu_ms_ : last_wall_ms_;
  if (opt.progress) opt.progress->store(1.0f);
  return rec;
}

Recording record(const Resolved& r, const RecordOptions& opt) {
  Engine engine;
  return engine.record(r, opt);
}

}  // namespace flashstep::gpu
