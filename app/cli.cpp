#include "app/cli.h"

#include "app/cli_args.h"
#include "app/export/commands.h"
#include "app/files.h"
#include "app/gui.h"
#include "app/ui/panels/frame.h"
#include "core/algorithms.h"
#include "core/compare.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/peak_memory.h"
#include "core/report.h"
#include "core/text.h"
#include "core/timed_run.h"
#include "core/workspace.h"
#include "gpu/gpu_engine.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

namespace flashstep {
namespace {

constexpr int kBadInput = 2;

std::string panel_list() {
  std::string out;
  for (const auto& n : ui::panel_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The JSON to standard output or, atomically, to the --json file.
void write_json(const RunOptions& o, const Json& j) {
  const std::string text = j.dump(1) + "\n";
  if (o.json == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else if (auto err = write_file_atomic(o.json, text); !err.empty()) {
    throw UsageError("--json " + err);
  }
}

// ---- the GPU backend ----------------------------------------------------------------------

// A run on the GPU: a hidden window provides the context, `gl` receives its strings. No display
// or no GL 4.3, and what the GPU backend refuses (fp64, too large a tile), are bad input.
TimedRun run_gpu(const Resolved& r, const RecordOptions& opt, const std::string& gl_path, gpu::GlInfo& gl,
                 int heads = 1) {
  // An algorithm with no GPU engine is refused before any context is made.
  if (std::string why = no_gpu_engine(info(r.scenario.algorithm)); !why.empty()) throw UsageError(why);
  std::string error;
  gpu::GlPath path = gpu::GlPath::auto_path;
  gpu::parse_gl_path(gl_path, path);  // checked by run_settings()
  const auto context = gpu::HiddenContext::create(error, path);
  if (!context) throw UsageError(error);
  gl = context->info();
  try {
    gpu::Engine engine;
    TimedRun run;
    run.rec = engine.record(r, opt, heads);
    run.peak_bytes = -1;  // GPU memory is not counted by the CPU's workspace accounting
    run.time_ms = engine.last_wall_ms();  // the dispatches, up to glFinish()
    run.kernel = "gpu";
    return run;
  } catch (const gpu::Unsupported& e) {
    throw UsageError(e.what());
  }
}

// `gl` receives the GPU context's strings when the backend is the GPU.
Recording record_on(const std::string& backend, const std::string& gl_path, const Resolved& r,
                    const RecordOptions& opt, gpu::GlInfo& gl) {
  if (backend == "cpu") return record(r, opt);
  return run_gpu(r, opt, gl_path, gl).rec;
}

// `--compare a,b`: both recordings of the scenario and the largest differences between them.
int compare_command(const RunOptions& o, const RunSettings& set, const Resolved& r, const RecordOptions& opt) {
  gpu::GlInfo gl;
  const CompareReport rep =
      compare(record_on(set.compare_a, o.gl, r, opt, gl), record_on(set.compare_b, o.gl, r, opt, gl));
  Json j;
  j["max_abs_output_diff"] = number_json(rep.max_abs_output_diff);
  j["max_rel_m_diff"] = number_json(rep.max_rel_m_diff);
  j["max_rel_l_diff"] = number_json(rep.max_rel_l_diff);
  // Every result both have, laid out as run's JSON lays out the results: a matrix (absolute
  // difference) at the top or in its group ("grads"), a statistic (relative) under "stats".
  Json diffs = Json::object();
  diffs["stats"] = Json::object();
  for (const ResultDiff& d : rep.results) {
    Json& at = !d.matrix ? diffs["stats"][d.name] : d.group.empty() ? diffs[d.name] : diffs[d.group][d.name];
    at = number_json(d.max_diff);
  }
  j["max_diff"] = std::move(diffs);
  j["steps_compared"] = rep.steps_compared;
  if (!rep.mismatch.empty()) j["mismatch"] = rep.mismatch;
  // Which driver, and how its context was made, as a GPU run's JSON says.
  if (!gl.path.empty()) {
    j["gl_renderer"] = gl.renderer;
    j["gl_path"] = gl.path;
  }
  write_json(o, j);
  return 0;
}

// `flashstep --version`: the program and, when a GL 4.3 context can be had, its driver.
std::string version_text() {
  std::string out = std::string("flashstep ") + FLASHSTEP_VERSION;
  std::string error;
  if (const auto context = gpu::HiddenContext::create(error))
    return out + "\n" + context->info().summary() + " (context: " + context->info().path + ")";
  return out + "\n" + error;
}

// What did not fit when an allocation failed, and what to ask for instead. attn-naive's S and
// P are refused before they are allocated (check_s_and_p_fit); this is for the rest.
std::string out_of_memory(const Scenario& s, const RunSettings& set) {
  const bool attention = takes_qkv(s.algorithm);  // its size is N and d rather than rows × n
  const std::string shape = attention ? strf("N = %d, d = %d", s.n, s.d) : strf("rows × n = %d × %d", s.rows, s.n);
  return strf("out of memory: %s at %s did not fit in this machine's %s; use %sa smaller %s",
              std::string(algorithm_id(s.algorithm)).c_str(), shape.c_str(),
              bytes_text(static_cast<double>(physical_memory_bytes())).c_str(),
              set.keep_steps ? "--steps none (no recording of every step) or " : "",
              attention ? "--n or --d" : "--n or --rows");
}

int run_scenario_command(const RunOptions& o, const RunSettings& set, const Scenario& s) {
  const Resolved r = resolve(s);
  for (const auto& notice : r.notices) std::cerr << "flashstep: note: " << notice << "\n";
  // A run timed on the CPU with no blocks asked for takes the fast kernel's: its notice instead.
  const bool kernel_blocks = !set.keep_steps && !set.gpu && set.compare_a.empty() && takes_kernel_blocks(r);
  for (const auto& notice : kernel_blocks ? std::vector<std::string>{kernel_blocks_notice(r)} : r.derived)
    std::cerr << "flashstep: note: " << notice << "\n";
  RecordOptions opt;
  opt.keep_steps = set.keep_steps;
  opt.memory_budget = set.memory_budget;
  if (!set.compare_a.empty()) return compare_command(o, set, r, opt);
  gpu::GlInfo gl;
  TimedRun run;
  if (set.gpu) {
    run = run_gpu(r, opt, o.gl, gl, o.heads);
  } else if (o.heads > 1) {
    run = run_timed_heads(r, o.heads, o.repeat, set.keep_output);  // run_scenario() checked --steps none
  } else if (set.keep_steps) {
    const std::int64_t base = Workspace::current();
    Workspace::reset_peak();
    const auto t0 = std::chrono::steady_clock::now();
    run.rec = record(r, opt);
    run.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.peak_bytes = Workspace::peak() - base;  // the engine's working memory, not the recording
    run.kernel = "recording";
  } else {
    // Summary only: the fast kernel where there is one, timed without input generation.
    run = run_timed(r, o.repeat, set.keep_output);
  }
  Json j = recording_json(run.rec, set.keep_steps, set.keep_output);
  j["kernel"] = run.kernel;
  j["time_ms"] = run.time_ms;
  if (!run.times_ms.empty()) j["times_ms"] = run.times_ms;
  if (run.kernel_blocks) j["blocks"]["chosen_by"] = "kernel";  // not the lesson's: see the notice
  j["peak_bytes"] = run.peak_bytes >= 0 ? Json(run.peak_bytes) : Json(nullptr);
  if (set.gpu) {
    j["gl_renderer"] = gl.renderer;
    j["gl_version"] = gl.version;
    j["gl_path"] = gl.path;  // egl-device, egl-surfaceless or glfw
  }
  write_json(o, j);
  return 0;
}

int run_command(const RunOptions& o, const CLI::App& cmd) {
  const Scenario s = run_scenario(o, cmd);
  const RunSettings set = run_settings(o);
  try {
    return run_scenario_command(o, set, s);
  } catch (const std::bad_alloc&) {
    Scenario shown = s;  // the shape of explicit inputs
    if (!s.x.empty()) shown.rows = static_cast<int>(s.x.size()), shown.n = static_cast<int>(s.x[0].size());
    if (!s.q.empty()) shown.n = static_cast<int>(s.q.size()), shown.d = static_cast<int>(s.q[0].size());
    throw UsageError(out_of_memory(shown, set));
  }
}

}  // namespace

int main_cli(int argc, char** argv) {
  CLI::App app{"FlashStep: step through softmax, online softmax and FlashAttention, on the CPU "
               "and on GPU compute shaders.\nWith no command it opens the window."};
  app.set_version_flag("--version", version_text);
  CliOptions o;
  const Commands cmd = define_cli(app, o, panel_list());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::cerr << "flashstep: " << what << " (see flashstep --help)\n";
    return kBadInput;
  }
  finish_gui_options(app, o.gui);
  const GuiOptions& gui = o.gui;

  try {
    if (cmd.run->parsed()) return run_command(o.run, *cmd.run);
    if (cmd.shot->parsed()) return shot_command(o.shot);
    if (cmd.gif->parsed()) return gif_command(o.gif);
    if (cmd.lessons->parsed()) {
      for (const Lesson& l : lessons()) std::cout << l.id << '\t' << l.heading() << '\n';
      return 0;
    }
    if (!gui.lesson.empty() && !find_lesson(gui.lesson))
      throw UsageError("--lesson '" + gui.lesson + "' is not a lesson; `flashstep lessons` lists them");
    return run_gui(gui);
  } catch (const UsageError& e) {
    std::cerr << "flashstep: " << e.what() << "\n";
    return kBadInput;
  } catch (const InputError& e) {
    std::cerr << "flashstep: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    // More than this machine's memory: the request is the user's to make smaller. `run` has
    // said which run did not fit (run_command); this is a picture or the window.
    const std::string memory = bytes_text(static_cast<double>(physical_memory_bytes()));
    if (cmd.shot->parsed() || cmd.gif->parsed())
      std::cerr << "flashstep: out of memory: the picture did not fit in this machine's " << memory
                << "; use a smaller --scale, --width or --height, or fewer steps\n";
    else
      std::cerr << "flashstep: out of memory: this machine has " << memory << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "flashstep: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace flashstep
