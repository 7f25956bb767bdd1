#include "gpu/program.h"

#include "core/text.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace flashstep::gpu {

std::string_view shader_source(std::string_view name) {
  for (const EmbeddedShader& s : embedded_shaders())
    if (name == s.name) return s.source;
  throw GpuError("no embedded shader named '" + std::string(name) + "'");
}

std::string compose_source(std::string_view name, const Defines& defines) {
  const std::string_view body = shader_source(name);
  const std::size_t eol = body.find('\n');
  const std::string_view version = body.substr(0, eol);
  if (version.rfind("#version", 0) != 0)
    throw GpuError(std::string(name) + ": the first line must be its #version");
  std::string out(version);
  out += '\n';
  for (const auto& [key, value] : defines) out += "#define " + key + " " + value + "\n";
  out += "#line 1 1\n";
  out += shader_source("common.glsl");
  out += "\n#line 1 3\n";
  out += shader_source("mask.glsl");
  out += "\n#line 2 2\n";
  out += body.substr(eol + 1);
  return out;
}

// ---- Program ------------------------------------------------------------------------------

Program& Program::operator=(Program&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteProgram(id_);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

Program::~Program() {
  if (id_) glDeleteProgram(id_);
}

void Program::set(const char* uniform, int v) const {
  const GLint loc = glGetUniformLocation(id_, uniform);
  if (loc >= 0) glUniform1i(loc, v);
}

void Program::set(const char* uniform, float v) const {
  const GLint loc = glGetUniformLocation(id_, uniform);
  if (loc >= 0) glUniform1f(loc, v);
}

static std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
  glGetShaderInfoLog(shader, length, nullptr, log.data());
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  return log;
}

static std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
  glGetProgramInfoLog(program, length, nullptr, log.data());
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  return log;
}

Program compile_compute(std::string_view name, const std::string& source) {
  const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  if (!shader) throw GpuError(std::string(name) + ": the driver cannot create a compute shader");
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = shader_log(shader);
    glDeleteShader(shader);
    throw GpuError("shader " + std::string(name) + " does not compile (in the log, source 1 is "
                   "common.glsl, source 2 is " + std::string(name) + " and source 3 mask.glsl):\n" + log);
  }
  const GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  glDeleteShader(shader);  // freed with the program
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = program_log(program);
    glDeleteProgram(program);
    throw GpuError("shader " + std::string(name) + " does not link:\n" + log);
  }
  return Program(program);
}

// ---- Buffer -------------------------------------------------------------------------------

Buffer::Buffer(std::size_t bytes, const void* data) : bytes_(std::max<std::size_t>(bytes, 4)) {
  for (int k = 0; k < 16 && glGetError() != GL_NO_ERROR; ++k) {
  }  // earlier errors must not be blamed on this allocation
  glGenBuffers(1, &id_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes_), nullptr, GL_DYNAMIC_COPY);
  if (data && bytes > 0) {
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
  } else {
    // A buffer without data starts zeroed, so an untouched trace entry reads as 0, not garbage.
    const GLuint zero = 0;
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  }
  if (glGetError() == GL_OUT_OF_MEMORY) {
    glDeleteBuffers(1, &id_);
    id_ = 0;
    throw GpuError("the GPU is out of memory for a buffer of " + std::to_string(bytes_) + " bytes");
  }
}

Buffer::~Buffer() {
  if (id_) glDeleteBuffers(1, &id_);
}

void Buffer::read_bytes(void* dst, std::size_t bytes) const {
  if (bytes == 0) return;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id_);
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), dst);
}

void dispatch(int groups_x, int groups_y, int groups_z) {
  glDispatchCompute(static_cast<GLuint>(std::clamp(groups_x, 1, kMaxGroups)),
                    static_cast<GLuint>(std::clamp(groups_y, 1, kMaxGroups)),
                    static_cast<GLuint>(std::clamp(groups_z, 1, kMaxGroups)));
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    throw GpuError(strf("glDispatchCompute(%d, %d, %d) failed with GL error 0x%04x", groups_x, groups_y,
                        groups_z, e));
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

void finish() { glFinish(); }

// ---- GpuTimer -----------------------------------------------------------------------------

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

GpuTimer::GpuTimer() { glGenQueries(1, &query_); }
GpuTimer::~GpuTimer() {
  glDeleteQueries(1, &query_);
  if (!stamps_.empty()) glDeleteQueries(static_cast<GLsizei>(stamps_.size()), stamps_.data());
}

void GpuTimer::begin() {
  glFinish();  // uploads queued before the dispatches are not theirs to pay for
  phases_.clear();
  marks_.clear();
  stamps_used_ = 0;
  start_s_ = now_s();
  glBeginQuery(GL_TIME_ELAPSED, query_);
}

void GpuTimer::end() {
  glEndQuery(GL_TIME_ELAPSED);
  close_phase();
  glFinish();
  wall_ms_ = (now_s() - start_s_) * 1e3;
}

void GpuTimer::phase(const char* name) {
  close_phase();
  int index = 0;
  while (index < static_cast<int>(phases_.size()) && phases_[index].name != name) ++index;
  if (index == static_cast<int>(phases_.size())) phases_.push_back({name});
  if (stamps_used_ == stamps_.size()) {
    stamps_.push_back(0);
    glGenQueries(1, &stamps_.back());
  }
  const GLuint stamp = stamps_[stamps_used_++];
  glFinish();
  glQueryCounter(stamp, GL_TIMESTAMP);
  marks_.push_back({index, now_s(), stamp});
}

void GpuTimer::close_phase() {
  if (marks_.empty()) return;
  const Mark start = marks_.back();
  marks_.clear();
  if (stamps_used_ == stamps_.size()) {
    stamps_.push_back(0);
    glGenQueries(1, &stamps_.back());
  }
  const GLuint stamp = stamps_[stamps_used_++];
  glQueryCounter(stamp, GL_TIMESTAMP);
  glFinish();
  Phase& p = phases_[static_cast<std::size_t>(start.phase)];
  p.wall_ms += (now_s() - start.wall_s) * 1e3;
  GLuint64 t0 = 0, t1 = 0;
  glGetQueryObjectui64v(start.stamp, GL_QUERY_RESULT, &t0);
  glGetQueryObjectui64v(stamp, GL_QUERY_RESULT, &t1);
  p.gpu_ms += t1 > t0 ? static_cast<double>(t1 - t0) * 1e-6 : 0.0;
}

double GpuTimer::query_ms() const {
  GLuint64 ns = 0;
  glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
  return static_cast<double>(ns) * 1e-6;
}

Limits query_limits() {
  Limits lim;
  GLint v = 0;
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &v);
  lim.max_shared_bytes = v;
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &v);
  lim.max_invocations = v;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &v);
  lim.max_group_size_x = v;
  GLint64 big = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &big);
  lim.max_storage_bytes = big;
  if (epoxy_has_gl_extension("GL_NVX_gpu_memory_info")) {
    constexpr GLenum kTotalAvailableKiB = 0x9048;  // GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX
    GLint kib = 0;
    glGetIntegerv(kTotalAvailableKiB, &kib);
    lim.memory_bytes = static_cast<long long>(kib) * 1024;
  }
  return lim;
}

long long probe_loop_cap() {
  const Program p = compile_compute("probe_loops.comp", compose_source("probe_loops.comp", {}));
  const std::vector<std::uint32_t> ones = {1u, 1u};
  const Buffer in(ones), count(4);
  p.use();
  p.set("bound", kLoopProbeBound);
  in.bind(0);
  count.bind(1);
  dispatch(1);
  const auto ran = static_cast<long long>(count.read<std::uint32_t>(1)[0]);
  return ran < kLoopProbeBound ? ran : 0;
}

}  // namespace flashstep::gpu
