// `flashstep run --backend gpu`, `--compare cpu,gpu` and `--version`, run as a user runs them.
#include "../rows.h"
#include "../tolerance.h"
#include "core/report.h"
#include "tests/invoke.h"

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using exe::capture;
using exe::lines;
using exe::Result;

}  // namespace

TEST_CASE("run --backend gpu works for every algorithm with a GPU engine and names the renderer") {
  for (flashstep::Algorithm a : rows::on_gpu(rows::where([](const flashstep::AlgorithmInfo&) { return true; }))) {
    const std::string args = "run --algo " + std::string(flashstep::algorithm_id(a)) + " --backend gpu --n 37 --d 8";
    const Result r = capture(args);
    INFO(args << " -> " << r.err);
    REQUIRE(r.status == 0);
    const auto j = flashstep::Json::parse(r.out);
    CHECK(j["backend"] == "gpu");
    CHECK(j["gl_renderer"].get<std::string>().size() > 0);
    CHECK(j["gl_version"].get<std::string>().size() > 0);
    CHECK(j["device"] == j["gl_renderer"]);
    CHECK(j["steps"].size() > 0);
  }
}

TEST_CASE("run --compare cpu,gpu prints the differences as JSON") {
  const Result r = capture("run --algo attn-tiled --n 100 --d 16 --causal --compare cpu,gpu");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  // The same scenario as the command line builds it: its derived CPU + GPU bound.
  flashstep::Scenario s;
  s.algorithm = flashstep::Algorithm::attn_tiled;
  s.n = 100;
  s.d = 16;
  s.causal = true;
  flashstep::CompareReport rep;
  rep.max_abs_output_diff = j["max_abs_output_diff"].get<double>();
  rep.max_rel_m_diff = j["max_rel_m_diff"].get<double>();
  rep.max_rel_l_diff = j["max_rel_l_diff"].get<double>();
  tolerance::check(rep, tolerance::between(flashstep::resolve(s), tolerance::Exp::cpu, tolerance::Exp::glsl));
  CHECK(j["steps_compared"].get<int>() > 0);
  CHECK_FALSE(j.contains("mismatch"));
  const Result bad = capture("run --algo online --compare cpu,tpu");
  CHECK(bad.status == 2);
  CHECK(lines(bad.err) == 1);
}

TEST_CASE("the GPU backend told to use GLFW without a display exits 2 with one line") {
  const Result r = capture("run --algo online --backend gpu --gl glfw", "env -u DISPLAY -u WAYLAND_DISPLAY");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("GPU backend needs OpenGL 4.3 compute shaders") != std::string::npos);
  CHECK(r.err.find("Use --backend cpu.") != std::string::npos);
}

TEST_CASE("the GPU backend on an OpenGL 3.3 context names the version and the renderer") {
  // Mesa can be told to offer no more than 3.3, as an old driver would. Other drivers (NVIDIA's,
  // where scripts/gpu-bundle.sh's bundle runs) ignore the variable: nothing to check there.
  const std::string version = capture("--version").out;
  if (version.find("(context: ") != std::string::npos && version.find("Mesa") == std::string::npos) {
    MESSAGE("not Mesa: MESA_GL_VERSION_OVERRIDE cannot make an OpenGL 3.3 context here");
    return;
  }
  const Result r = capture("run --algo online --backend gpu", "MESA_GL_VERSION_OVERRIDE=3.3");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("this context is 3.3 (renderer ") != std::string::npos);
  CHECK(r.err.find("Use --backend cpu.") != std::string::npos);
}

TEST_CASE("fp64 on the GPU is bad input with a clear line") {
  const Result r = capture("run --algo online --backend gpu --precision fp64");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("fp64") != std::string::npos);
}

TEST_CASE("--version reports the OpenGL version and renderer") {
  const Result r = capture("--version");
  CHECK(r.status == 0);
  CHECK(r.out.find("flashstep ") == 0);
  CHECK(r.out.find("OpenGL ") != std::string::npos);
  CHECK(r.out.find("renderer ") != std::string::npos);
}

TEST_CASE("with no display at all, run --backend gpu, --compare and --version get their context from EGL and say so") {
  // `env -u DISPLAY -u WAYLAND_DISPLAY`: what a GPU server or a CI machine without Xvfb has.
  const std::string none = "env -u DISPLAY -u WAYLAND_DISPLAY";
  const Result run = capture("run --algo attn-tiled-v2 --backend gpu --n 64 --d 16 --json -", none);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto j = flashstep::Json::parse(run.out);
  CHECK(j["backend"] == "gpu");
  const std::string path = j["gl_path"].get<std::string>();
  CHECK((path == "egl-device" || path == "egl-surfaceless"));
  const Result cmp = capture("run --algo online --compare cpu,gpu --input 3,2,5,1", none);
  REQUIRE(cmp.status == 0);
  const auto c = flashstep::Json::parse(cmp.out);
  CHECK(c["steps_compared"] == 8);
  CHECK(c["gl_path"] == path);
  // A comparison of the CPU with itself makes no context and says nothing of one.
  const Result cpu = capture("run --algo online --compare cpu,cpu --input 3,2,5,1", none);
  REQUIRE(cpu.status == 0);
  CHECK_FALSE(flashstep::Json::parse(cpu.out).contains("gl_path"));
  const Result version = capture("--version", none);
  REQUIRE(version.status == 0);
  CHECK(version.out.find("(context: egl-") != std::string::npos);
  // --gl egl is the same; --gl glfw needs the display it does not have, and says so.
  const Result egl = capture("run --algo online --backend gpu --gl egl --input 1,2 --steps none", none);
  CHECK(egl.status == 0);
  const Result glfw = capture("run --algo online --backend gpu --gl glfw --input 1,2 --steps none", none);
  CHECK(glfw.status == 2);
  CHECK(glfw.err.find("DISPLAY") != std::string::npos);
  const Result bad = capture("run --algo online --backend gpu --gl vulkan --input 1,2");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--gl 'vulkan': use auto, egl or glfw") != std::string::npos);
}

TEST_CASE("the GLFW path still works where there is a display") {
  if (!std::getenv("DISPLAY")) return;
  const Result r = capture("run --algo attn-online --backend gpu --gl glfw --n 16 --d 8 --steps none");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(flashstep::Json::parse(r.out)["gl_path"] == "glfw");
}

TEST_CASE("run --backend gpu --heads: the JSON says heads, and attn-naive at N = 65536, H = 16 names 550 GB") {
  const Result r = capture("run --algo attn-tiled-v2 --backend gpu --n 33 --d 8 --heads 4 --steps none");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["heads"] == 4);
  CHECK(j["output"].size() == 4 * 33);
  const Result naive = capture("run --algo attn-naive --backend gpu --n 65536 --d 64 --heads 16 --steps none");
  CHECK(naive.status == 2);
  CHECK(lines(naive.err) == 1);
  CHECK(naive.err.find("2·H·N² floats = 2·16·65536²·4 B = 512.0 GiB (550 GB)") != std::string::npos);
  const Result kept = capture("run --algo attn-tiled-v2 --backend gpu --n 33 --d 8 --heads 4");
  CHECK(kept.status == 2);
  CHECK(kept.err.find("--heads needs --steps none") != std::string::npos);
}

TEST_CASE("run --algo attn-flash-backward --n 32 --d 8 --causal --scale sqrt --seed 3 --backend gpu gives the CPU's grads") {
  // The CPU's grads from this command equal central differences of the forward (tests/cli/
  // test_cli_backward.cpp); the GPU's are within both backends' bounds of them.
  const std::string args = "run --algo attn-flash-backward --n 32 --d 8 --causal --scale sqrt --seed 3 --steps none --json -";
  const Result gpu = capture(args + " --backend gpu"), cpu = capture(args);
  INFO(gpu.err << cpu.err);
  REQUIRE(gpu.status == 0);
  REQUIRE(cpu.status == 0);
  const auto g = flashstep::Json::parse(gpu.out), c = flashstep::Json::parse(cpu.out);
  CHECK(g["backend"] == "gpu");
  flashstep::Scenario s;
  s.algorithm = flashstep::Algorithm::attn_flash_backward;
  s.n = 32, s.d = 8, s.seed = 3, s.causal = true, s.scale_mode = flashstep::ScaleMode::inv_sqrt_d;
  const flashstep::Resolved r = flashstep::resolve(s);
  const tolerance::GradBound a = tolerance::attention_grads(r, tolerance::Exp::glsl),
                             b = tolerance::attention_grads(r, tolerance::Exp::cpu);
  const char* names[] = {"dq", "dk", "dv"};
  const flashstep::MatrixRM* bounds[][2] = {{&a.dq, &b.dq}, {&a.dk, &b.dk}, {&a.dv, &b.dv}};
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 32; ++i)
      for (int col = 0; col < 8; ++col) {
        CAPTURE(names[k]);
        CAPTURE(i);
        const double diff = std::fabs(g["grads"][names[k]][i][col].get<double>() - c["grads"][names[k]][i][col].get<double>());
        CHECK(diff <= (*bounds[k][0])(i, col) + (*bounds[k][1])(i, col));
      }
  for (int i = 0; i < 32; ++i)
    CHECK(std::fabs(g["stats"]["D"][i].get<double>() - c["stats"]["D"][i].get<double>()) <= a.D[i] + b.D[i]);
}
