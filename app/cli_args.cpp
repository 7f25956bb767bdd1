#include "app/cli_args.h"

#include "app/files.h"
#include "core/algorithms.h"
#include "core/heads.h"
#include "core/params.h"
#include "core/report.h"
#include "core/scenario_json.h"
#include "core/text.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace flashstep {

Commands define_cli(CLI::App& app, CliOptions& o, const std::string& panels) {
  GuiOptions& gui = o.gui;
  CLI::Option* lesson = app.add_option("--lesson", gui.lesson, "Lesson to open (see `flashstep lessons`)");
  app.add_option("--scenario", gui.scenario,
                 "Scenario file to open in the window, as File > Open does (its lesson, inputs, playhead, panels)")
      ->excludes(lesson);
  app.add_option("--quit-after", gui.quit_after_frames,
                 "Render this many frames, then exit (a smoke test of the window)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--width", gui.width, "Window width in pixels, at least 960")->capture_default_str()->check(CLI::Range(960, 16384));
  app.add_option("--height", gui.height, "Window height in pixels, at least 600")->capture_default_str()->check(CLI::Range(600, 16384));
  app.add_option("--bench-frames", gui.bench_frames,
                 "Benchmark: play the lesson one step per frame for this many frames without vsync "
                 "and print the frame times (attention lessons at N = 128, d = 64, unless --scenario gives the inputs)")
      ->check(CLI::NonNegativeNumber);

  Commands c;
  RunOptions& r = o.run;
  c.run = app.add_subcommand("run", "Run one algorithm headless and write its Recording as JSON");
  c.run->add_option("--algo", r.algo, "Algorithm: " + algorithm_id_list() + " (required unless --scenario)");
  c.run->add_option("--scenario", r.scenario,
                    "Scenario file (JSON, as the app saves it); options given as well override its fields");
  c.run->add_option("--input", r.input,
                    "Softmax input, e.g. \"3,2,5,1\" or \"3 2 5 1\"; rows separated by ';'. An empty value "
                    "(1,,2), an empty row (1,2;;3,4) or an empty --input is refused");
  c.run->add_option("--n", r.n, "Length of a random softmax row, or N (tokens) for attention")->capture_default_str();
  c.run->add_option("--d", r.d, "Head dimension (attention shape; d of the 1/sqrt(d) scale); with --qkv it comes from the file")->capture_default_str();
  c.run->add_option("--rows", r.rows, "Number of random softmax rows")->capture_default_str();
  c.run->add_option("--seed", r.seed, "Seed of the standard-normal random inputs")->capture_default_str();
  c.run->add_option("--qkv", r.qkv, "JSON file {\"q\":[[...]],\"k\":[[...]],\"v\":[[...]]} for attention");
  c.run->add_option("--do", r.d_o,
                    "JSON file with the upstream gradient dO, N x d, as [[...], ...] or {\"do\": [[...]]}, for the "
                    "backward algorithms (absent: random from the seed, drawn after Q, K, V)");
  c.run->add_option("--precision", r.precision, "fp64, fp32, fp16 or bf16")->capture_default_str();
  c.run->add_option("--scale", r.scale, "Score scale: none, sqrt (1/sqrt(d)) or a number")->capture_default_str();
  c.run->add_flag("--causal", r.causal, "Causal mask (attention): query i sees keys j <= i");
  // The parameters, from their declarations (core/params.h). The map's entries stay where they
  // are while others are added, so each option can write into its own.
  for (const ParamDecl& p : params()) {
    long long& value = r.params[p.key];
    value = p.def;
    if (p.type == ParamType::flag) {
      c.run->add_flag_callback(p.flag, [&value] { value = 1; }, p.help);
    } else {
      CLI::Option* opt = c.run->add_option(p.flag, value, p.help);
      if (!p.zero_is_auto) opt->capture_default_str();  // "0 or absent" says the default itself
    }
  }
  c.run->add_option("--backend", r.backend, "cpu or gpu")->capture_default_str();
  c.run->add_option("--gl", r.gl,
                    "How the GPU backend gets its OpenGL context: auto (EGL's device platform, then EGL "
                    "surfaceless, then a hidden GLFW window), egl (no display needed) or glfw (needs a display)")
      ->capture_default_str();
  c.run->add_option("--compare", r.compare,
                    "Run on two backends (e.g. cpu,gpu) and print their largest differences as JSON");
  c.run->add_option("--steps", r.steps, "all: record every step; none: output and totals only")->capture_default_str();
  c.run->add_option("--output", r.output, "all: put the output in the JSON; none: leave it out (huge runs)")
      ->capture_default_str();
  c.run->add_option("--repeat", r.repeat, "With --steps none: run R times; time_ms is the best, times_ms every one in order (with R > 1 the cores "
                    "are first kept busy for 0.3 s, so that an idle CPU's slow start is not timed, and a fast "
                    "kernel runs once untimed, so that the timed runs all find its inputs in cache)")
      ->capture_default_str();
  c.run->add_option("--heads", r.heads,
                    "With --steps none, attention only: H independent heads of the same N and d, as a "
                    "multi-head layer has them (head 0 is the single-head run; the others drawn from "
                    "--seed); time_ms is all of them, the output holds them head after head")
      ->capture_default_str();
  c.run->add_option("--memory-budget", r.memory_budget_mib,
                    "MiB a recording with --steps all may use; larger ones are refused with the estimate")
      ->capture_default_str();
  c.run->add_option("--json", r.json, "Where to write the JSON; \"-\" for standard output")->capture_default_str();

  c.lessons = app.add_subcommand("lessons", "List the lessons: id<TAB>title, one per line");

  // Pictures of a lesson or a scenario file, rendered off-screen in a context of their own (EGL
  // needs no display).
  auto picture_options = [&panels](CLI::App* cmd, PictureOptions& p) {
    cmd->add_option("--lesson", p.lesson, "Lesson id (see `flashstep lessons`); or --scenario");
    cmd->add_option("--scenario", p.scenario,
                    "Scenario file (JSON, as the app saves it): its lesson, inputs and panels; or --lesson");
    cmd->add_option("--theme", p.theme, "dark, light or projector")->capture_default_str();
    cmd->add_option("--panel", p.panel, "One panel instead of the whole window: " + panels);
    cmd->add_option("--width", p.width, "Window width the picture stands for")->capture_default_str();
    cmd->add_option("--height", p.height, "Window height the picture stands for")->capture_default_str();
    cmd->add_option("--scale", p.scale, "Pixels per window unit (2, 4 for slides): rendered at that size, not upscaled")
        ->capture_default_str();
    cmd->add_flag("--transparent", p.transparent, "Transparent background");
    cmd->add_flag("--present", p.present, "Presentation mode (P in the window): no menus or controls, everything 1.5× larger, the view with the memory panel, explanation and pseudocode");
    cmd->add_option("--font-scale", p.font_scale, "Font size as View > Font size sets it, 1..3")
        ->capture_default_str();
    cmd->add_option("--out", p.out, "The file to write (written atomically)");
    cmd->add_option("--measure-n", p.measure_n,
                    "Measure it yourself (--panel measure-lab, or a scenario open on its tab), which the picture "
                    "times on this machine's CPU first: the largest attention N, a power of two from 512 to "
                    "16384 (default 8192)")
        ->check(CLI::Range(512, 16384));
    cmd->add_option("--measure-d", p.measure_d, "Measure it yourself's head dimension d: 64 (the default) or 128")
        ->check(CLI::IsMember({64, 128}));
    cmd->add_option("--gl", p.gl,
                    "How the picture's OpenGL context is made: auto (EGL's device platform, then EGL "
                    "surfaceless, then a hidden GLFW window), egl (no display needed) or glfw (needs a display). "
                    "With OpenGL 4.3 a lesson on the GPU backend is recorded on it")
        ->capture_default_str();
  };
  c.shot = app.add_subcommand("shot", "Render a lesson or a scenario file at one step to a PNG");
  picture_options(c.shot, o.shot);
  c.shot->add_option("--step", o.shot.step,
                     "Step number from 1, as the window shows it, or last (default: the first step, or "
                     "the scenario file's playhead); with --panel compare, a step of Compare's playhead");
  c.shot->add_option("--part", o.shot.part,
                     "Part of the step, from 1 (a tiled step's S, P̃ and merge; the keys , and .); "
                     "absent: the whole step");
  c.shot->add_flag("--ask", o.shot.ask,
                   "Ask me first (View menu): the question of --step (default: the first question) as the "
                   "window asks it, on the step before");
  c.shot->add_option("--answer", o.shot.answer,
                     "With --ask: this answer typed, and the question's step shown with it scored "
                     "(\"you: 2.72, right: 2.7183 ✓\")");
  c.shot->add_option("--pen", o.shot.pen,
                     "A pen stroke over the presented view (with --present) or the view panel (with --panel "
                     "view), as the pen (L) draws it in "
                     "presentation mode: points \"x,y x,y ...\", fractions 0..1 of the view's width and "
                     "height; give --pen again for another stroke")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c.shot->add_option("--tour-stop", o.shot.tour_stop,
                     "Stop K (from 1) of the lesson's guided tour: its step, with the stop's text and its "
                     "target outlined, as View > Tour shows it; instead of --step");
  c.gif = app.add_subcommand("gif", "Render a range of steps of a lesson or a scenario file to an animated GIF");
  picture_options(c.gif, o.gif);
  c.gif->add_option("--from", o.gif.from,
                    "First step (numbered from 1, as the window shows them, or last; with --panel compare, "
                    "Compare's)")->capture_default_str();
  c.gif->add_option("--to", o.gif.to, "Last step (or last)")->capture_default_str();
  c.gif->add_option("--fps", o.gif.fps, "Frames per second, 0.1 to 100 (a GIF times frames in hundredths of a second)")->capture_default_str();
  c.gif->add_flag("--parts", o.gif.parts,
                  "A frame for each part of a step that has parts (a tiled step's S, P̃ and merge), "
                  "not only for the whole step");
  c.gif->add_option("--tween", o.gif.tween,
                    "In-between frames per step, 0 to 30: each move from one step to the next drawn as "
                    "the window animates it (bars rescaling, tiles travelling); the steps' own frames "
                    "stay exact")
      ->capture_default_str();
  return c;
}

void finish_gui_options(const CLI::App& app, GuiOptions& gui) {
  gui.size_given = app.count("--width") > 0 || app.count("--height") > 0;
}

ScaleMode parse_scale(const std::string& text, double& value) {
  if (text == "none") return ScaleMode::none;
  if (text == "sqrt" || text == "1/sqrt(d)") return ScaleMode::inv_sqrt_d;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    throw UsageError("--scale '" + text + "': use none, sqrt (for 1/sqrt(d)) or a finite number");
  return ScaleMode::value;
}

// --heads H: H heads of one attention run, for timing; what a lesson steps through stays one head.
static void check_heads_option(const RunOptions& o, const Scenario& s) {
  if (o.heads < 1 || o.heads > kMaxHeads)
    throw UsageError(strf("--heads %d: use 1 to %d heads", o.heads, kMaxHeads));
  if (o.heads == 1) return;
  if (!takes_qkv(s.algorithm)) {
    std::string ids;  // the rows whose heads draw their own Q, K, V
    for (const AlgorithmInfo& a : algorithm_table())
      if (takes_qkv(a.algorithm)) ids += (ids.empty() ? "" : ", ") + std::string(a.id);
    throw UsageError("--heads is for the attention algorithms (" + ids + "); " +
                     std::string(algorithm_id(s.algorithm)) + " is a softmax");
  }
  if (!o.qkv.empty())
    throw UsageError("--heads with --qkv: the file gives one head's Q, K, V; leave --heads out, or let "
                     "--n, --d and --seed draw the heads");
  if (!o.d_o.empty())
    throw UsageError("--heads with --do: the file gives one head's dO; leave --heads out, or let --seed draw "
                     "each head's dO");
  if (o.steps != "none") throw UsageError("--heads needs --steps none: the lessons' views show one head");
  if (!o.compare.empty())
    throw UsageError("--heads with --compare: the comparison is of one head; leave --heads out");
}

// Without a file, the options' defaults are Scenario's own, so every option counts as given.
Scenario run_scenario(const RunOptions& o, const CLI::App& cmd, FileAccess files) {
  // An option given with an empty value is refused, not taken for the option left out.
  struct Named {
    const char* name;
    const std::string& value;
    const char* give;
  };
  for (const Named& n : {Named{"--scenario", o.scenario, "a scenario file"}, Named{"--qkv", o.qkv, "a JSON file"},
                         Named{"--do", o.d_o, "a JSON file"},
                         Named{"--compare", o.compare, "two backends, e.g. cpu,gpu"}})
    if (cmd.count(n.name) > 0 && n.value.empty())
      throw UsageError(std::string(n.name) + " '' is empty: give " + n.give + ", or leave " + n.name + " out");
  Scenario s;
  if (!o.scenario.empty() && files == FileAccess::read) {
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
  for (const ParamDecl& p : params()) {
    if (!given(p.flag.c_str())) continue;
    const auto it = o.params.find(p.key);
    const long long v = it == o.params.end() ? p.def : it->second;
    // resolve() names a value out of range; one beyond a field's int is refused here, before
    // it would be cut to another value.
    if (p.member && (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()))
      throw UsageError(param_range_error(p, v));
    set_param(s, p, v);
  }
  // An option the algorithm does not take is refused, not silently ignored.
  for (const ParamDecl& p : params())
    if (cmd.count(p.flag) > 0 && !takes(s.algorithm, p))
      throw UsageError(p.flag + " sets " + (p.sets.empty() ? "the " + p.name : p.sets) + " of " + takers(p) + "; " +
                       std::string(algorithm_id(s.algorithm)) + " " + (p.lacks.empty() ? "does not take it" : p.lacks));
  // Given means given: an empty --input is refused, not taken for "random input".
  if (cmd.count("--input") > 0) {
    if (!takes(s.algorithm, kInputX))
      throw UsageError("--input is for the softmax algorithms; attention takes --qkv FILE or --n, --d, --seed");
    if (o.input.find_first_not_of(" \t\r\n") == std::string::npos)
      throw UsageError("--input '" + o.input + "' is empty: give numbers such as 3,2,5,1, or leave "
                       "--input out for a random input (--n, --rows, --seed)");
    try {
      s.x = parse_rows(o.input);
    } catch (const InputError& e) {
      const std::string what = e.what();  // "input: ...", "input is empty: ..."
      throw UsageError(what.rfind("input", 0) == 0 ? "--" + what : what);
    }
    s.q.clear(), s.k.clear(), s.v.clear();
  }
  if (!o.d_o.empty() && files == FileAccess::read) {
    // The shape is checked against N and d by resolve(), which names the shape it expects.
    std::string text, error;
    if (!read_file(o.d_o, text, error)) throw UsageError("--do " + error);
    const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw UsageError("--do " + o.d_o + ": not valid JSON");
    if (!j.is_array() && !j.is_object())
      throw UsageError("--do " + o.d_o + ": expected a matrix [[...], ...] or {\"do\": [[...], ...]}");
    try {
      s.d_o = matrix_from_json(j.is_array() ? Json{{"do", j}} : j, "do", "--do " + o.d_o);
    } catch (const InputError& e) {
      throw UsageError(e.what());
    }
    if (s.d_o.empty()) throw UsageError("--do " + o.d_o + ": the matrix is empty; leave --do out for a random dO");
  }
  if (!o.qkv.empty() && files == FileAccess::read) {
    std::string text, error;
    if (!read_file(o.qkv, text, error)) throw UsageError("--qkv " + error);
    const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw UsageError("--qkv " + o.qkv + ": not valid JSON");
    if (!j.is_object()) throw UsageError("--qkv " + o.qkv + ": expected {\"q\": [[...]], \"k\": [[...]], \"v\": [[...]]}");
    s.q = matrix_from_json(j, "q", "--qkv " + o.qkv);
    s.k = matrix_from_json(j, "k", "--qkv " + o.qkv);
    s.v = matrix_from_json(j, "v", "--qkv " + o.qkv);
    s.x.clear();
    // The file gives N and d: a different --n or --d would be silently ignored, so it is
    // refused; the same value is harmless. --seed draws random inputs, which the file replaces.
    const int N = static_cast<int>(s.q.size()), d = s.q.empty() ? 0 : static_cast<int>(s.q[0].size());
    if (cmd.count("--d") > 0 && o.d != d)
      throw UsageError(strf("--d %d with --qkv: d comes from the file, whose Q is %d x %d; leave --d out",
                            o.d, N, d));
    if (cmd.count("--n") > 0 && o.n != N)
      throw UsageError(strf("--n %d with --qkv: N comes from the file, whose Q is %d x %d; leave --n out",
                            o.n, N, d));
    // The seed still draws an input of the row's own that is not given (the backward's dO).
    bool seed_draws = false;
    for (const InputSpec* in : info(s.algorithm).inputs) seed_draws |= in->own && (s.*(in->given)).empty();
    if (cmd.count("--seed") > 0 && !seed_draws)
      throw UsageError("--seed with --qkv: the seed draws random Q, K, V, and the file gives them; leave --seed out");
  }
  check_heads_option(o, s);
  return s;
}

RunSettings run_settings(const RunOptions& o) {
  RunSettings r;
  if (o.backend != "cpu" && o.backend != "gpu")
    throw UsageError("--backend '" + o.backend + "': use cpu or gpu");
  if (o.steps != "all" && o.steps != "none")
    throw UsageError("--steps '" + o.steps + "': use all or none");
  if (o.gl != "auto" && o.gl != "egl" && o.gl != "glfw")
    throw UsageError("--gl '" + o.gl + "': use auto, egl or glfw");
  if (o.output != "all" && o.output != "none")
    throw UsageError("--output '" + o.output + "': use all or none");
  if (o.repeat < 1) throw UsageError("--repeat " + std::to_string(o.repeat) + ": must be at least 1");
  if (!(o.memory_budget_mib > 0))
    throw UsageError("--memory-budget " + num(o.memory_budget_mib) + ": must be a positive number of MiB");
  if (!o.compare.empty()) {
    const auto comma = o.compare.find(',');
    r.compare_a = o.compare.substr(0, comma);
    r.compare_b = comma == std::string::npos ? "" : o.compare.substr(comma + 1);
    for (const std::string& backend : {r.compare_a, r.compare_b})
      if (backend != "cpu" && backend != "gpu")
        throw UsageError("--compare '" + o.compare + "': give two backends, e.g. cpu,gpu");
  }
  r.gpu = o.backend == "gpu";
  r.keep_steps = o.steps == "all";
  r.keep_output = o.output == "all";
  // A budget beyond what a long long holds (up to inf) means no limit.
  const double bytes = o.memory_budget_mib * 1048576.0;
  constexpr auto kMaxBudget = std::numeric_limits<long long>::max();
  r.memory_budget = bytes >= static_cast<double>(kMaxBudget) ? kMaxBudget : static_cast<long long>(bytes);
  return r;
}

}  // namespace flashstep
