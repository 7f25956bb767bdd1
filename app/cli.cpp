#include "app/cli.h"

#include "app/export/commands.h"
#include "app/files.h"
#include "app/ui/frame.h"
#include "app/gui.h"
#include "core/compare.h"
#include "core/engine.h"
#include "core/lessons.h"
#include "core/peak_memory.h"
#include "core/timed_run.h"
#include "core/report.h"
#include "core/scenario_json.h"
#include "core/text.h"
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

// A bad argument or file: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::string algo, scenario, input, qkv, precision = "fp32", scale = "none", backend = "cpu",
                                steps = "all", output = "all", json = "-";
  int n = 8, d = 4, rows = 1, block_rows = 0, block_cols = 0, sram = 0, chunks = 4, repeat = 1;
  double memory_budget_mib = kDefaultMemoryBudget / 1048576.0;
  long long seed = 1;
  bool causal = false;
  std::string compare;  // "cpu,gpu": run on both backends and print how far apart they are
};

ScaleMode parse_scale(const std::string& text, double& value) {
  if (text == "none") return ScaleMode::none;
  if (text == "sqrt" || text == "1/sqrt(d)") return ScaleMode::inv_sqrt_d;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    throw UsageError("--scale '" + text + "': use none, sqrt (for 1/sqrt(d)) or a finite number");
  return ScaleMode::value;
}

// The scenario of a run: the --scenario file if there is one, then every option given on the
// command line on top (without a file, the options' defaults are Scenario's own).
Scenario scenario_from(const RunOptions& o, const CLI::App& cmd) {
  Scenario s;
  if (!o.scenario.empty()) {
    std::string text, error;
    if (!read_file(o.scenario, text, error)) throw UsageError("--scenario " + error);
    try {
      s = parse_document(text).scenario;
    } catch (const InputError& e) {
      throw UsageError(o.scenario + ": " + e.what());
    }
  }
  auto given = [&](const char* name) { return o.scenario.empty() || cmd.count(name) > 0; };
  if (given("--algo")) {
    if (o.algo.empty()) throw UsageError("--algo is required (or --scenario FILE); use one of " + algorithm_id_list());
    const auto algo = parse_algorithm(o.algo);
    if (!algo) throw UsageError("--algo '" + o.algo + "' is not an algorithm; use one of " + algorithm_id_list());
    s.algorithm = *algo;
  }
  if (given("--precision")) {
    const auto prec = parse_precision(o.precision);
    if (!prec) throw UsageError("--precision '" + o.precision + "': use fp64, fp32, fp16 or bf16");
    s.precision = *prec;
  }
  if (given("--scale")) s.scale_mode = parse_scale(o.scale, s.scale_value);
  if (given("--causal")) s.causal = o.causal;
  if (given("--n")) s.n = o.n;
  if (given("--d")) s.d = o.d;
  if (given("--rows")) s.rows = o.rows;
  if (given("--seed")) {
    if (o.seed < 0) throw UsageError("--seed " + std::to_string(o.seed) + ": must be 0 or more");
    s.seed = static_cast<std::uint64_t>(o.seed);
  }
  if (given("--block-rows")) s.block_rows = o.block_rows;
  if (given("--block-cols")) s.block_cols = o.block_cols;
  if (given("--sram")) s.sram = o.sram;
  if (given("--chunks")) s.chunks = o.chunks;
  if (!o.input.empty()) {
    if (is_attention(s.algorithm))
      throw UsageError("--input is for the softmax algorithms; attention takes --qkv FILE or --n, --d, --seed");
    s.x = parse_rows(o.input);
    s.q.clear(), s.k.clear(), s.v.clear();
  }
  if (!o.qkv.empty()) {
    std::string text, error;
    if (!read_file(o.qkv, text, error)) throw UsageError("--qkv " + error);
    const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw UsageError("--qkv " + o.qkv + ": not valid JSON");
    if (!j.is_object()) throw UsageError("--qkv " + o.qkv + ": expected {\"q\": [[...]], \"k\": [[...]], \"v\": [[...]]}");
    s.q = matrix_from_json(j, "q", "--qkv " + o.qkv);
    s.k = matrix_from_json(j, "k", "--qkv " + o.qkv);
    s.v = matrix_from_json(j, "v", "--qkv " + o.qkv);
    s.x.clear();
  }
  return s;
}

// ---- the GPU backend ----------------------------------------------------------------------

// A run on the GPU: a hidden window provides the context, `gl` receives its strings. No display
// or no GL 4.3, and what the GPU backend refuses (fp64, too large a tile), are bad input.
TimedRun run_gpu(const Resolved& r, const RecordOptions& opt, gpu::GlInfo& gl) {
  std::string error;
  const auto context = gpu::HiddenContext::create(error);
  if (!context) throw UsageError(error);
  gl = context->info();
  try {
    gpu::Engine engine;
    TimedRun run;
    PeakProbe probe;
    run.rec = engine.record(r, opt);
    run.peak_bytes = probe.peak_extra();
    run.time_ms = engine.last_wall_ms();  // the dispatches, up to glFinish()
    run.kernel = "gpu";
    return run;
  } catch (const gpu::Unsupported& e) {
    throw UsageError(e.what());
  }
}

Recording record_on(const std::string& backend, const Resolved& r, const RecordOptions& opt) {
  if (backend == "cpu") return record(r, opt);
  gpu::GlInfo gl;
  return run_gpu(r, opt, gl).rec;
}

// `--compare a,b`: both recordings of the scenario and the largest differences between them.
int compare_command(const RunOptions& o, const Resolved& r, const RecordOptions& opt) {
  const auto comma = o.compare.find(',');
  const std::string a = o.compare.substr(0, comma);
  const std::string b = comma == std::string::npos ? "" : o.compare.substr(comma + 1);
  for (const std::string& backend : {a, b})
    if (backend != "cpu" && backend != "gpu")
      throw UsageError("--compare '" + o.compare + "': give two backends, e.g. cpu,gpu");
  const CompareReport rep = compare(record_on(a, r, opt), record_on(b, r, opt));
  Json j;
  j["max_abs_output_diff"] = number_json(rep.max_abs_output_diff);
  j["max_rel_m_diff"] = number_json(rep.max_rel_m_diff);
  j["max_rel_l_diff"] = number_json(rep.max_rel_l_diff);
  j["steps_compared"] = rep.steps_compared;
  if (!rep.mismatch.empty()) j["mismatch"] = rep.mismatch;
  const std::string text = j.dump(1) + "\n";
  if (o.json == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else if (auto err = write_file_atomic(o.json, text); !err.empty()) {
    throw UsageError("--json " + err);
  }
  return 0;
}

// `flashstep --version`: the program and, when a GL 4.3 context can be had, its driver.
std::string version_text() {
  std::string out = std::string("flashstep ") + FLASHSTEP_VERSION;
  std::string error;
  if (const auto context = gpu::HiddenContext::create(error))
    return out + "\n" + context->info().summary();
  return out + "\n" + error;
}

int run_command(const RunOptions& o, const CLI::App& cmd) {
  const Scenario s = scenario_from(o, cmd);
  if (o.backend != "cpu" && o.backend != "gpu")
    throw UsageError("--backend '" + o.backend + "': use cpu or gpu");
  if (o.steps != "all" && o.steps != "none")
    throw UsageError("--steps '" + o.steps + "': use all or none");
  if (o.output != "all" && o.output != "none")
    throw UsageError("--output '" + o.output + "': use all or none");
  if (o.repeat < 1) throw UsageError("--repeat " + std::to_string(o.repeat) + ": must be at least 1");
  if (!(o.memory_budget_mib > 0))
    throw UsageError("--memory-budget " + num(o.memory_budget_mib) + ": must be a positive number of MiB");
  const Resolved r = resolve(s);
  for (const auto& notice : r.notices) std::cerr << "flashstep: note: " << notice << "\n";
  if (!o.compare.empty()) {
    RecordOptions opt;
    opt.keep_steps = o.steps == "all";
    opt.memory_budget = static_cast<long long>(o.memory_budget_mib * 1048576.0);
    return compare_command(o, r, opt);
  }
  gpu::GlInfo gl;
  const bool keep_steps = o.steps == "all", keep_output = o.output == "all";
  TimedRun run;
  if (o.backend == "gpu") {
    RecordOptions opt;
    opt.keep_steps = keep_steps;
    opt.memory_budget = static_cast<long long>(o.memory_budget_mib * 1048576.0);
    run = run_gpu(r, opt, gl);
  } else if (keep_steps) {
    PeakProbe probe;
    const auto t0 = std::chrono::steady_clock::now();
    RecordOptions opt;
    opt.memory_budget = static_cast<long long>(o.memory_budget_mib * 1048576.0);
    run.rec = record(r, opt);
    run.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.peak_bytes = probe.peak_extra();
    run.kernel = "recording";
  } else {
    // Summary only: the fast kernel where there is one, timed without input generation.
    run = run_timed(r, o.repeat, keep_output);
  }
  Json j = recording_json(run.rec, keep_steps, keep_output);
  j["kernel"] = run.kernel;
  j["time_ms"] = run.time_ms;
  j["peak_bytes"] = run.peak_bytes;
  if (o.backend == "gpu") {
    j["gl_renderer"] = gl.renderer;
    j["gl_version"] = gl.version;
  }
  const std::string text = j.dump(1) + "\n";
  if (o.json == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else if (auto err = write_file_atomic(o.json, text); !err.empty()) {
    throw UsageError("--json " + err);
  }
  return 0;
}

}  // namespace

int main_cli(int argc, char** argv) {
  CLI::App app{"FlashStep: step through softmax, online softmax and FlashAttention, on the CPU "
               "and on GPU compute shaders.\nWith no command it opens the window."};
  app.set_version_flag("--version", version_text);
  GuiOptions gui;
  app.add_option("--lesson", gui.lesson, "Lesson to open (see `flashstep lessons`)");
  app.add_option("--quit-after", gui.quit_after_frames,
                 "Render this many frames, then exit (a smoke test of the window)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--width", gui.width, "Window width in pixels")->capture_default_str()->check(CLI::Range(320, 16384));
  app.add_option("--height", gui.height, "Window height in pixels")->capture_default_str()->check(CLI::Range(240, 16384));
  app.add_option("--bench-frames", gui.bench_frames,
                 "Benchmark: play the lesson one step per frame for this many frames without vsync "
                 "and print the frame times (attention lessons at N = 128, d = 64)")
      ->check(CLI::NonNegativeNumber);

  RunOptions o;
  CLI::App* run = app.add_subcommand("run", "Run one algorithm headless and write its Recording as JSON");
  run->add_option("--algo", o.algo, "Algorithm: " + algorithm_id_list() + " (required unless --scenario)");
  run->add_option("--scenario", o.scenario,
                  "Scenario file (JSON, as the app saves it); options given as well override its fields");
  run->add_option("--input", o.input, "Softmax input, e.g. \"3,2,5,1\"; rows separated by ';'");
  run->add_option("--n", o.n, "Length of a random softmax row, or N (tokens) for attention")->capture_default_str();
  run->add_option("--d", o.d, "Head dimension (attention shape; d of the 1/sqrt(d) scale)")->capture_default_str();
  run->add_option("--rows", o.rows, "Number of random softmax rows")->capture_default_str();
  run->add_option("--seed", o.seed, "Seed of the standard-normal random inputs")->capture_default_str();
  run->add_option("--qkv", o.qkv, "JSON file {\"q\":[[...]],\"k\":[[...]],\"v\":[[...]]} for attention");
  run->add_option("--precision", o.precision, "fp64, fp32, fp16 or bf16")->capture_default_str();
  run->add_option("--scale", o.scale, "Score scale: none, sqrt (1/sqrt(d)) or a number")->capture_default_str();
  run->add_flag("--causal", o.causal, "Causal mask (attention): query i sees keys j <= i");
  run->add_option("--block-rows", o.block_rows, "Br, rows of a Q block (tiled attention)");
  run->add_option("--block-cols", o.block_cols, "Bc, rows of a K/V block (tiled attention)");
  run->add_option("--sram", o.sram,
                  "SRAM size M in elements: Bc = ceil(M/4d), Br = min(Bc, d); default " +
                      std::to_string(kDefaultSram) + " when no block size is given");
  run->add_option("--chunks", o.chunks, "K, workers of the chunked softmax")->capture_default_str();
  run->add_option("--backend", o.backend, "cpu or gpu")->capture_default_str();
  run->add_option("--compare", o.compare,
                  "Run on two backends (e.g. cpu,gpu) and print their largest differences as JSON");
  run->add_option("--steps", o.steps, "all: record every step; none: output and totals only")->capture_default_str();
  run->add_option("--output", o.output, "all: put the output in the JSON; none: leave it out (huge runs)")
      ->capture_default_str();
  run->add_option("--repeat", o.repeat, "With --steps none: run R times, report the best time_ms")
      ->capture_default_str();
  run->add_option("--memory-budget", o.memory_budget_mib,
                  "MiB a recording with --steps all may use; larger ones are refused with the estimate")
      ->capture_default_str();
  run->add_option("--json", o.json, "Where to write the JSON; - for standard output")->capture_default_str();

  CLI::App* lessons_cmd = app.add_subcommand("lessons", "List the lessons: id<TAB>title, one per line");

  // Pictures of a lesson, rendered off-screen (a display or Xvfb is needed for the GL context).
  ShotOptions shot;
  GifOptions gif;
  auto picture_options = [](CLI::App* cmd, PictureOptions& p) {
    cmd->add_option("--lesson", p.lesson, "Lesson id (see `flashstep lessons`)");
    cmd->add_option("--panel", p.panel, "One panel instead of the whole window: " + panel_list());
    cmd->add_option("--width", p.width, "Window width the picture stands for")->capture_default_str();
    cmd->add_option("--height", p.height, "Window height the picture stands for")->capture_default_str();
    cmd->add_option("--scale", p.scale, "Pixels per window unit (2, 4 for slides): rendered at that size, not upscaled")
        ->capture_default_str();
    cmd->add_flag("--transparent", p.transparent, "Transparent background");
    cmd->add_option("--out", p.out, "The file to write (written atomically)");
  };
  CLI::App* shot_cmd = app.add_subcommand("shot", "Render a lesson at one step to a PNG");
  picture_options(shot_cmd, shot);
  shot_cmd->add_option("--step", shot.step, "Step number from 0, or last")->capture_default_str();
  CLI::App* gif_cmd = app.add_subcommand("gif", "Render a range of a lesson's steps to an animated GIF");
  picture_options(gif_cmd, gif);
  gif_cmd->add_option("--from", gif.from, "First step (from 0, or last)")->capture_default_str();
  gif_cmd->add_option("--to", gif.to, "Last step (or last)")->capture_default_str();
  gif_cmd->add_option("--fps", gif.fps, "Frames per second")->capture_default_str();

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

  try {
    if (run->parsed()) return run_command(o, *run);
    if (shot_cmd->parsed()) return shot_command(shot);
    if (gif_cmd->parsed()) return gif_command(gif);
    if (lessons_cmd->parsed()) {
      for (const Lesson& l : lessons()) std::cout << l.id << '\t' << l.title << '\n';
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
    std::cerr << "flashstep: out of memory; use --steps none or a smaller N\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flashstep: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace flashstep
