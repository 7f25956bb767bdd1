// Compute programs and storage buffers: the embedded shader sources, how they are specialised
// with #defines, compiled (failures carry the shader's name and the driver's log), and the RAII
// wrappers the engines use. Needs a current OpenGL >= 4.3 context.
#pragma once

#include "gpu/context.h"

#include <epoxy/gl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flashstep::gpu {

struct EmbeddedShader {
  const char* name;    // "attn_tiled.comp", "common.glsl"
  const char* source;
};
// Every file of shaders/, embedded at build time (cmake/embed_text.cmake).
const std::vector<EmbeddedShader>& embedded_shaders();
// The embedded source of `name`; throws GpuError for an unknown name.
std::string_view shader_source(std::string_view name);

// (name, value) pairs, each becoming "#define name value".
using Defines = std::vector<std::pair<std::string, std::string>>;

// The text handed to the driver: the body's #version line, the defines, common.glsl, mask.glsl,
// then the rest of the body. #line directives make the driver's log count lines in the files
// themselves: source 1 is common.glsl, source 2 the shader, source 3 mask.glsl.
std::string compose_source(std::string_view name, const Defines& defines);

class Program {
 public:
  Program() = default;
  explicit Program(GLuint id) : id_(id) {}
  Program(Program&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  Program& operator=(Program&& o) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  GLuint id() const { return id_; }
  void use() const { glUseProgram(id_); }
  // Sets a uniform of the program in use; a name the compiler removed is ignored.
  void set(const char* uniform, int v) const;
  void set(const char* uniform, float v) const;

 private:
  GLuint id_ = 0;
};

// Compiles and links one compute shader. Throws GpuError naming `name` with the driver's log.
Program compile_compute(std::string_view name, const std::string& source);

// A shader storage buffer of `bytes` bytes (at least 4), filled from `data` when given.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes, const void* data = nullptr);
  template <class T>
  explicit Buffer(const std::vector<T>& v) : Buffer(v.size() * sizeof(T), v.data()) {}
  Buffer(Buffer&& o) noexcept : id_(std::exchange(o.id_, 0)), bytes_(o.bytes_) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  void bind(int binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id_); }
  std::size_t bytes() const { return bytes_; }
  // The first `count` elements, after the shaders that wrote them have finished.
  template <class T>
  std::vector<T> read(std::size_t count) const {
    std::vector<T> out(count);
    read_bytes(out.data(), count * sizeof(T));
    return out;
  }

 private:
  void read_bytes(void* dst, std::size_t bytes) const;
  GLuint id_ = 0;
  std::size_t bytes_ = 0;
};

// Dispatches the program in use and makes its storage writes visible to what comes next
// (another dispatch or a read-back). Group counts above the GL minimum of 65535 are clamped:
// the shaders loop over what one dispatch does not cover in x and y. The attention shaders take
// the head from the last dimension of their grid (y or z), whose count the engine keeps within
// kMaxGroups.
inline constexpr int kMaxGroups = 65535;
void dispatch(int groups_x, int groups_y = 1, int groups_z = 1);
// Waits until the GPU has done every command given so far (glFinish).
void finish();

// The groups needed to cover `items` with `per_group` invocations each.
inline int groups_for(long long items, int per_group) {
  return static_cast<int>((items + per_group - 1) / per_group);
}

// How long the commands between begin() and end() take, two ways: the GPU's own clock through a
// GL_TIME_ELAPSED query, and the wall clock from begin() to the end of the work (glFinish() on
// both sides). Drivers that run compute on the CPU may leave compute out of their timer queries
// (llvmpipe reports ~0 ms), which the wall clock shows.
class GpuTimer {
 public:
  // Times one block of dispatches: begin() here, end() when the scope closes, even on a throw.
  class Scope {
   public:
    explicit Scope(GpuTimer& t) : t_(t) { t_.begin(); }
    ~Scope() { t_.end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GpuTimer& t_;
  };

  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  void begin();
  void end();
  double query_ms() const;  // GL_TIME_ELAPSED (waits for the result)
  double wall_ms() const { return wall_ms_; }

  // Splits the block being timed into named phases (attn-naive's three kernels): ends the phase
  // before and starts `name`, after a glFinish() so that the wall clock can tell them apart, and
  // with a GL_TIMESTAMP query for the GPU's clock. Phases of the same name add up; begin() clears
  // them, end() closes the last.
  void phase(const char* name);
  struct Phase {
    std::string name;
    double gpu_ms = 0, wall_ms = 0;
  };
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  struct Mark {
    int phase;  // index into phases_
    double wall_s;
    GLuint stamp;
  };
  void close_phase();
  GLuint query_ = 0;
  double start_s_ = 0, wall_ms_ = 0;
  std::vector<Phase> phases_;
  std::vector<GLuint> stamps_;  // GL_TIMESTAMP query objects, reused
  std::vector<Mark> marks_;     // the open phase's start, then none
  std::size_t stamps_used_ = 0;
};

// Limits of the current context that decide what the engines can run.
struct Limits {
  long long max_shared_bytes = 0;       // GL_MAX_COMPUTE_SHARED_MEMORY_SIZE
  int max_invocations = 0;              // GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS
  int max_group_size_x = 0;             // GL_MAX_COMPUTE_WORK_GROUP_SIZE[0]
  long long max_storage_bytes = 0;      // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  // The GPU's memory where the driver says (GL_NVX_gpu_memory_info), else 0: unknown.
  long long memory_bytes = 0;
  // The loop iterations after which this driver ends an invocation's loops, as probe_loop_cap()
  // measured them; 0 when a loop ran all kLoopProbeBound iterations (no cap found).
  long long loop_cap = 0;
};
// Everything above but loop_cap, from glGet.
Limits query_limits();

// The loop bound the probe asks for: far beyond llvmpipe's cap of 65535, a millisecond's work for
// one invocation of a real GPU.
inline constexpr int kLoopProbeBound = 1000000;
// Runs one invocation of shaders/probe_loops.comp, a loop of kLoopProbeBound iterations given as
// a uniform, and returns the iterations it ran when fewer (llvmpipe counts every loop iteration
// of an invocation and quietly leaves its loops at 65535), 0 when it ran them all. A driver's
// limit measured, not assumed from its name.
long long probe_loop_cap();

}  // namespace flashstep::gpu
