// The command line, run as a user runs it: exit codes, stderr, the JSON it writes.
#include "core/fast.h"
#include "core/lessons.h"
#include "core/report.h"
#include "tests/invoke.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <cmath>

namespace {

using exe::capture;
using exe::lines;
using exe::Result;

std::string tmp_path() {
  static int counter = 0;
  return "/tmp/flashstep-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}


}  // namespace

TEST_CASE("run --algo online writes the schema") {
  const Result r = capture("run --algo online --input '3,2,5,1'");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["algorithm"] == "online");
  CHECK(j["backend"] == "cpu");
  CHECK(j["precision"] == "fp32");
  CHECK(j["shape"]["n"] == 4);
  CHECK(j["output"].size() == 4);
  CHECK(j["stats"]["m"][0] == 5.0);
  CHECK(j["io"]["hbm_reads"] == 8);
  CHECK(j["io"]["hbm_writes"] == 4);
  CHECK(j["nonfinite"] == 0);
  REQUIRE(j["steps"].size() == 8);
  CHECK(j["steps"][0]["m"][0] == 3.0);
  CHECK(j["steps"][0]["pass"] == 1);
  CHECK(j["steps"][7]["pass"] == 2);
}

TEST_CASE("non-finite numbers are strings and undefined m is null") {
  const Result r = capture("run --algo naive --input '1000,2000,3000' --steps none");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["output"][0] == "nan");
  CHECK(j["stats"]["l"][0] == "inf");
  CHECK(j["stats"]["m"][0].is_null());
  CHECK(j["nonfinite"] == 3);
  CHECK_FALSE(j.contains("steps"));
}

TEST_CASE("steps of a safe softmax carry m and l as they stand after each step") {
  const Result r = capture("run --algo safe --input '3,2,5,1'");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["steps"][0]["m"][0] == 3.0);
  CHECK(j["steps"][2]["m"][0] == 5.0);
  CHECK(j["steps"][4]["l"][0].get<double>() == doctest::Approx(std::exp(3.0 - 5.0)).epsilon(1e-6));
}

TEST_CASE("matrix input gives one m and l per row") {
  const Result r = capture("run --algo online --input '1,2;3,4;5,6'");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["output"].size() == 3);
  CHECK(j["stats"]["m"].size() == 3);
  CHECK(j["stats"]["m"][2] == 6.0);
  CHECK(j["steps"][0]["m"].size() == 3);
  CHECK(j["steps"][0]["m"][0] == 1.0);
  CHECK(j["steps"][0]["m"][1] == "-inf");  // row 2 has not started: m is still -inf
}

TEST_CASE("--json FILE writes the file and an unwritable path is one clear line, exit 2") {
  const std::string path = std::string(tmp_path()) + ".json";
  Result r = capture("run --algo safe --input 1,2 --json " + path);
  CHECK(r.status == 0);
  FILE* f = std::fopen(path.c_str(), "r");
  CHECK(f != nullptr);
  if (f) std::fclose(f);
  std::remove(path.c_str());
  r = capture("run --algo safe --input 1,2 --json /nonexistent-dir/x.json");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("/nonexistent-dir/x.json") != std::string::npos);
}

TEST_CASE("--steps none reports the kernel time and peak memory, --output none leaves the output out") {
  Result r = capture("run --algo attn-tiled-v2 --n 300 --d 16 --steps none --repeat 2");
  REQUIRE(r.status == 0);
  auto j = flashstep::Json::parse(r.out);
  CHECK(j["kernel"] == "fast");
  CHECK(j["time_ms"].get<double>() > 0);
  CHECK(j["peak_bytes"].get<double>() >= 0);
  CHECK(j["output"].size() == 300);
  CHECK(j["io"]["hbm_writes"] == 300 * 16 + 300);  // Nd + N
  r = capture("run --algo online --n 100000 --steps none --output none");
  REQUIRE(r.status == 0);
  j = flashstep::Json::parse(r.out);
  CHECK_FALSE(j.contains("output"));
  CHECK(j["nonfinite"] == 0);
  CHECK(j["io"]["hbm_reads"] == 200000);
  // A precision without a fast kernel is timed through the reference engine.
  r = capture("run --algo online --n 1000 --precision fp16 --steps none");
  REQUIRE(r.status == 0);
  CHECK(flashstep::Json::parse(r.out)["kernel"] == "reference");
}

TEST_CASE("a timed CPU run that asks for no blocks takes the fast kernel's own, says so, and counts IO for them") {
  const int N = 1000, d = 64;
  Result r = capture("run --algo attn-tiled-v2 --n 1000 --d 64 --steps none --output none --repeat 3");
  REQUIRE(r.status == 0);
  auto j = flashstep::Json::parse(r.out);
  const flashstep::fast::KernelBlocks b = flashstep::fast::kernel_blocks(N, d);
  CHECK(j["blocks"]["chosen_by"] == "kernel");
  CHECK(j["blocks"]["Br"] == b.Br);
  CHECK(j["blocks"]["Bc"] == b.Bc);
  // Their working set fits in half the L2 cache, and every thread has a Q block.
  CHECK(b.tile_bytes == 4 * (2 * b.Br * d + 2 * b.Bc * d + b.Br * b.Bc));
  CHECK(b.tile_bytes <= b.l2_bytes / 2);
  CHECK((N + b.Br - 1) / b.Br >= std::min(flashstep::fast::threads(), N / 16));
  // FA-2 reads Q once and K, V once per Q block: N·d·(1 + 2·Tr) for the blocks it ran with.
  const int Tr = (N + b.Br - 1) / b.Br;
  CHECK(j["io"]["hbm_reads"] == static_cast<long long>(N) * d * (1 + 2 * Tr));
  REQUIRE(j["notices"].size() == 1);
  const std::string notice = j["notices"][0];
  CHECK(notice.find("chosen by the fast CPU kernel") != std::string::npos);
  CHECK(notice.find("The lesson's Br = 64, Bc = 64 come from M = 16384") != std::string::npos);
  CHECK(r.err.find(notice) != std::string::npos);  // said on stderr too, instead of M's
  CHECK(r.err.find("derived from M") == std::string::npos);
  CHECK(j["times_ms"].size() == 3);
  CHECK(j["time_ms"].get<double>() == doctest::Approx(std::min({j["times_ms"][0].get<double>(), j["times_ms"][1].get<double>(),
                                                                j["times_ms"][2].get<double>()})));
  // Blocks or M asked for, a recording, the GPU or a precision without a fast kernel: the lesson's.
  for (const char* asked : {"--block-rows 32", "--block-cols 32", "--sram 16384", "--precision fp16", ""}) {
    CAPTURE(asked);
    const std::string steps = *asked ? " --steps none" : " --steps all";
    r = capture(std::string("run --algo attn-tiled --n 200 --d 64 --output none ") + asked + steps);
    REQUIRE(r.status == 0);
    j = flashstep::Json::parse(r.out);
    CHECK_FALSE(j["blocks"].contains("chosen_by"));
    CHECK(r.err.find("chosen by the fast CPU kernel") == std::string::npos);
  }
}

TEST_CASE("run --scenario FILE, with options on top") {
  Result r = capture("run --scenario " FLASHSTEP_TEST_DATA "/scenarios/online_3251.json --steps none");
  REQUIRE(r.status == 0);
  auto j = flashstep::Json::parse(r.out);
  CHECK(j["algorithm"] == "online");
  CHECK(j["shape"]["n"] == 4);
  CHECK(j["stats"]["m"][0] == 5.0);
  r = capture("run --scenario " FLASHSTEP_TEST_DATA "/scenarios/online_3251.json --precision fp16 --algo safe --steps none");
  REQUIRE(r.status == 0);
  j = flashstep::Json::parse(r.out);
  CHECK(j["algorithm"] == "safe");
  CHECK(j["precision"] == "fp16");
  CHECK(j["shape"]["n"] == 4);
}

TEST_CASE("run --scenario FILE with no \"scenario\" in it runs the lesson's own example") {
  const Result r = capture("run --scenario " FLASHSTEP_TEST_DATA "/scenarios/lesson_only.json --steps none");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  const flashstep::Lesson* tiled = flashstep::find_lesson("attn-tiled");
  REQUIRE(tiled);
  CHECK(j["algorithm"] == "attn-tiled");
  CHECK(j["shape"]["n"] == tiled->scenario.n);
  CHECK(j["shape"]["d"] == tiled->scenario.d);
}

TEST_CASE("lessons lists id<TAB>title") {
  const Result r = capture("lessons");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("online\t") != std::string::npos);
  CHECK(r.out.find("attn-tiled-v2\t") != std::string::npos);
  CHECK(lines(r.out) >= 10);
}

TEST_CASE("bad input: exit 2 and one line naming the problem") {
  struct Case {
    const char* args;
    const char* mentions;
  };
  const Case cases[] = {
      {"run --algo nope", "nope"},
      {"run", "--algo"},
      {"run --algo online --block-rows 4", "no tiles"},
      {"run --algo attn-naive --sram 4096", "no tiles"},
      {"run --algo safe --chunks 2", "workers of chunked"},
      {"run --scenario /nonexistent/s.json", "/nonexistent/s.json"},
      {"run --scenario " FLASHSTEP_TEST_DATA "/not_json.txt", "not JSON"},
      {"run --algo safe --input '3,x,1'", "'x'"},
      {"run --algo safe --input ';;'", "empty"},
      {"run --algo safe --n 0", "n = 0"},
      {"run --algo safe --n -3", "n = -3"},
      {"run --algo attn-tiled --n abc", "abc"},
      {"run --algo attn-tiled --d 0", "d = 0"},
      {"run --algo safe --precision fp8", "fp8"},
      {"run --algo safe --scale banana", "banana"},
      {"run --algo safe --causal", "causal"},
      {"run --algo chunked --input 1,2,3 --chunks 0", "chunks = 0"},
      {"run --algo attn-tiled --n 16 --d 8 --sram 10", "sram"},
      {"run --algo attn-tiled --block-rows -1", "Br"},
      {"run --algo attn-naive --input 1,2", "--input"},
      {"run --algo safe --input '1,2;3'", "row 2"},
      {"run --algo safe --input 1e-400,1", "would be read as 0"},
      {"run --algo safe --input 0x1p3,1", "hexadecimal"},
      {"run --algo safe --backend tpu", "tpu"},
      {"run --algo safe --steps some", "some"},
      {"run --algo attn-naive --qkv /nonexistent.json", "/nonexistent.json"},
      {"run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/not_json.txt", "not valid JSON"},
      {"run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_bad_shape.json", "N x d"},
      {"run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_2x2.json --d 8", "d comes from the file"},
      {"run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_2x2.json --n 5", "N comes from the file"},
      {"run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_2x2.json --seed 3", "--seed with --qkv"},
      {"run --algo safe --seed -1", "seed"},
      {"run --algo safe --repeat 0", "--repeat"},
      {"run --algo safe --output some", "--output"},
      {"run --algo safe --memory-budget 0", "--memory-budget"},
      {"run --algo attn-online --n 400 --d 64 --memory-budget 64", "would need"},
      {"--lesson nope", "nope"},
      {"run --algo safe --rows 0", "rows"},
      {"run --algo safe --scale inf", "--scale 'inf'"},
      {"run --algo attn-tiled --block-cols -2", "Bc"},
      {"run --algo attn-tiled --sram -5", "sram"},
      {"run --algo safe --compare cpu", "--compare 'cpu'"},
      {"run --algo safe --compare cpu,tpu", "cpu,tpu"},
      {"run --algo safe --memory-budget nan", "--memory-budget"},
      {"run --scenario " FLASHSTEP_TEST_DATA "/scenarios/online_3251.json --algo quick", "quick"},
      {"run --algo safe --frobnicate", "--frobnicate"},
      {"run --algo safe --n 99999999999", "99999999999"},
      {"shot --width abc --lesson online --out /tmp/x.png", "abc"},
      {"--width 10", "--width"},
      {"lessons extra", "extra"},
      // Given means given: an empty vector or an empty value is refused, never dropped.
      {"run --algo online --input ''", "--input '' is empty"},
      {"run --algo online --input '  '", "is empty"},
      {"run --algo attn-naive --input ''", "--input"},
      {"run --algo online --input '1,,2'", "value 2 of row 1 is empty"},
      {"run --algo online --input ',1'", "value 1 of row 1 is empty"},
      {"run --algo online --input '1,2;3,,4'", "value 2 of row 2 is empty"},
      {"run --algo safe --input '1,2;;3,4'", "row 2 is empty"},
      {"run --algo safe --input ';1,2'", "row 1 is empty"},
      {"run --scenario " FLASHSTEP_TEST_DATA "/scenarios/online_3251.json --input ''", "--input"},
      {"run --algo online --scenario ''", "--scenario '' is empty"},
      {"run --algo attn-naive --qkv ''", "--qkv '' is empty"},
      {"run --algo online --compare ''", "--compare '' is empty"},
      // S and P that cannot fit are refused before they are allocated, on every path.
      {"run --algo attn-naive --n 1000000 --d 1 --steps none", "attn-tiled or attn-tiled-v2"},
      {"run --algo attn-naive --n 1000000 --d 1", "attn-tiled or attn-tiled-v2"},
      {"run --algo attn-naive --n 1000000 --d 1 --precision fp16 --steps none", "2·N² fp16 values"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Result r = capture(c.args);
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.mentions) != std::string::npos);
  }
}

TEST_CASE("one comma may end the input, and spaces and brackets separate values") {
  for (const char* input : {"'3,2,5,1,'", "'3 2 5 1'", "'[3, 2, 5, 1]'"}) {
    CAPTURE(input);
    const Result r = capture(std::string("run --algo online --steps none --input ") + input);
    REQUIRE(r.status == 0);
    CHECK(flashstep::Json::parse(r.out)["shape"]["n"] == 4);
  }
}

TEST_CASE("attn-naive too large for memory names S and P, their size and what to run instead") {
  const Result r = capture("run --algo attn-naive --n 1000000 --d 1 --steps none");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.rfind("flashstep: attn-naive at N = 1000000 needs S and P, 2·N² fp32 values = 7.3 TiB, more than "
                    "this machine's ", 0) == 0);
  CHECK(r.err.find("use attn-tiled or attn-tiled-v2 (no N×N matrix), or N ≤ ") != std::string::npos);
  // The N it names fits: 2·N²·4 bytes is at most the memory the line names.
  const auto le = r.err.find("N ≤ ");
  REQUIRE(le != std::string::npos);
  const long long largest = std::stoll(r.err.substr(le + std::string("N ≤ ").size()));
  CHECK(largest > 1000);
  CHECK(largest < 1000000);
}

TEST_CASE("chunked with more workers than elements uses one per element, with a notice") {
  // The seed example: three elements and the default four workers.
  for (const char* extra : {"", " --chunks 4"}) {
    CAPTURE(extra);
    const Result r = capture(std::string("run --algo chunked --input 1000,2000,3000 --steps none") + extra);
    REQUIRE(r.status == 0);
    const auto j = flashstep::Json::parse(r.out);
    CHECK(j["chunks"] == 3);
    REQUIRE(j["notices"].size() == 1);
    CHECK(j["notices"][0] == "4 workers are more than the n = 3 elements; using 3 workers");
    CHECK(r.err == "flashstep: note: 4 workers are more than the n = 3 elements; using 3 workers\n");
  }
  const Result r = capture("run --algo chunked --input 1,2,3,4,5 --chunks 2 --steps none");
  REQUIRE(r.status == 0);
  CHECK(flashstep::Json::parse(r.out)["notices"].empty());
}

TEST_CASE("block sizes of 0 or left out are derived from M, and the notices say so") {
  // 0 given, and absent: the same blocks and the same notice.
  for (const char* blocks : {"--block-rows 0 --block-cols 0", ""}) {
    CAPTURE(blocks);
    const Result r = capture(std::string("run --algo attn-tiled --n 256 --d 16 --sram 1024 --steps none ") + blocks);
    REQUIRE(r.status == 0);
    const auto j = flashstep::Json::parse(r.out);
    CHECK(j["blocks"]["Br"] == 16);
    CHECK(j["blocks"]["Bc"] == 16);
    REQUIRE(j["notices"].size() == 1);
    CHECK(j["notices"][0] == "Br = 16, Bc = 16 derived from M = 1024: Bc = ⌈M/4d⌉ = 16; Br = min(Bc, d) = 16");
  }
  // One given: the other is derived, and said to be.
  Result r = capture("run --algo attn-tiled-v2 --n 64 --d 8 --block-rows 4 --steps none");
  REQUIRE(r.status == 0);
  auto j = flashstep::Json::parse(r.out);
  CHECK(j["blocks"]["Br"] == 4);
  CHECK(j["blocks"]["Bc"] == 64);
  REQUIRE(j["notices"].size() == 1);
  CHECK(j["notices"][0] == "Bc = 64 derived from M = 16384 (the default): Bc = ⌈M/4d⌉ = 512, capped at N = 64");
  // Both given: nothing derived, nothing said.
  r = capture("run --algo attn-tiled --n 64 --d 8 --block-rows 4 --block-cols 8 --steps none");
  REQUIRE(r.status == 0);
  CHECK(flashstep::Json::parse(r.out)["notices"].empty());
  CHECK(r.err.empty());
  r = capture("run --help");
  CHECK(r.out.find("0 or absent: derived from M") != std::string::npos);
}

TEST_CASE("M at the largest int derives its blocks without overflow") {
  const Result r = capture("run --algo attn-tiled --sram 2147483647 --n 8 --d 8 --steps none");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["blocks"]["Bc"] == 8);  // ceil((2^31 − 1) / 32) = 2^26, capped at N
  CHECK(j["notices"][0].get<std::string>().find("67108864") != std::string::npos);
}

TEST_CASE("a block size larger than N is clamped with a note") {
  const Result r = capture("run --algo attn-tiled --n 5 --d 2 --block-rows 8 --block-cols 3 --steps none");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["blocks"]["Br"] == 5);
  CHECK(j["blocks"]["Bc"] == 3);
  CHECK(j["blocks"]["Tc"] == 2);
  CHECK(r.err.find("Br = 8") != std::string::npos);
  CHECK(j["notices"].size() == 1);
}

TEST_CASE("--qkv reads Q, K, V from JSON, and a --d that agrees with the file is accepted") {
  const Result r = capture("run --algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_2x2.json --d 2 --steps none");
  REQUIRE(r.status == 0);
  const auto j = flashstep::Json::parse(r.out);
  CHECK(j["shape"]["n"] == 2);
  CHECK(j["shape"]["d"] == 2);
  // q1 . k = [1, 0] -> softmax [e/(e+1), 1/(e+1)]; O row 1 = that mix of v1 = [1, 0], v2 = [0, 1].
  const double e = std::exp(1.0);
  CHECK(j["output"][0][0].get<double>() == doctest::Approx(e / (e + 1)).epsilon(1e-6));
  CHECK(j["output"][0][1].get<double>() == doctest::Approx(1 / (e + 1)).epsilon(1e-6));
}

TEST_CASE("--heads H runs H heads with --steps none: head 0 is the single-head run, the JSON says heads") {
  const Result one = capture("run --algo attn-tiled-v2 --n 20 --d 4 --seed 5 --steps none");
  const Result three = capture("run --algo attn-tiled-v2 --n 20 --d 4 --seed 5 --steps none --heads 3");
  REQUIRE(one.status == 0);
  REQUIRE(three.status == 0);
  const auto j1 = flashstep::Json::parse(one.out), j3 = flashstep::Json::parse(three.out);
  CHECK(j1["heads"] == 1);
  CHECK(j3["heads"] == 3);
  CHECK(j3["shape"]["n"] == 20);
  REQUIRE(j3["output"].size() == 60);  // head after head
  CHECK(j3["stats"]["l"].size() == 60);
  for (int i = 0; i < 20; ++i) CHECK(j3["output"][i] == j1["output"][i]);
  CHECK(j3["output"][20] != j1["output"][0]);  // head 1 has inputs of its own
  CHECK(j3["io"]["flops"].get<double>() == 3 * j1["io"]["flops"].get<double>());
  // --heads 1 is the run without --heads, steps and all.
  const Result kept = capture("run --algo attn-tiled --n 6 --d 2 --heads 1");
  REQUIRE(kept.status == 0);
  CHECK(flashstep::Json::parse(kept.out)["steps"].size() > 0);
}

TEST_CASE("--heads is refused with one line where it cannot apply") {
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : {
           Case{"--algo attn-tiled --n 8 --d 2 --heads 2", "--heads needs --steps none: the lessons' views show one head"},
           Case{"--algo attn-naive --qkv " FLASHSTEP_TEST_DATA "/qkv_2x2.json --heads 2 --steps none", "--heads with --qkv"},
           Case{"--algo safe --n 8 --heads 2 --steps none", "--heads is for the attention algorithms"},
           Case{"--algo attn-tiled --n 8 --d 2 --heads 0 --steps none", "--heads 0: use 1 to 1024 heads"},
           Case{"--algo attn-tiled --n 8 --d 2 --heads -3 --steps none", "--heads -3: use 1 to 1024 heads"},
           Case{"--algo attn-tiled --n 8 --d 2 --heads 100000 --steps none", "--heads 100000: use 1 to 1024 heads"},
           Case{"--algo attn-tiled --n 8 --d 2 --heads 2 --steps none --compare cpu,gpu", "--heads with --compare"},
           Case{"--algo attn-naive --n 65536 --d 8 --heads 1000 --steps none", "H·N·d"},
       }) {
    const std::string args = std::string("run ") + c.args;
    CAPTURE(args);
    const Result r = capture(args);
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("attn-naive at N = 65536 with 16 heads is refused naming S and P's 550 GB") {
  // 2·16·65536²·4 B = 512 GiB: more than any machine this runs on.
  const Result r = capture("run --algo attn-naive --n 65536 --d 64 --heads 16 --steps none");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("S and P of every head at once, 2·H·N² fp32 values = 512.0 GiB (550 GB)") != std::string::npos);
  CHECK(r.err.find("use attn-tiled or attn-tiled-v2") != std::string::npos);
}

TEST_CASE("run's stats name only what the algorithm computes, with every kernel: no lse where none is stored") {
  for (const char* steps : {"all", "none"}) {
    CAPTURE(steps);
    const Result online = capture(std::string("run --algo online --input '3,2,5,1' --steps ") + steps);
    REQUIRE(online.status == 0);
    const auto j = flashstep::Json::parse(online.out);
    CHECK(j["stats"].contains("m"));
    CHECK(j["stats"].contains("l"));
    CHECK_FALSE(j["stats"].contains("lse"));  // online softmax keeps no log-sum-exp
    const Result v2 = capture(std::string("run --algo attn-tiled-v2 --n 8 --d 4 --steps ") + steps);
    REQUIRE(v2.status == 0);
    const auto k = flashstep::Json::parse(v2.out);
    REQUIRE(k["stats"].contains("lse"));  // FlashAttention-2 stores L
    CHECK(k["stats"]["lse"].size() == 8);
    CHECK(k["stats"]["lse"][0].is_number());
  }
}

TEST_CASE("run --compare lists every result run's JSON has, beside its old keys") {
  // The CPU against itself: every difference is 0, and every result of the run is there, laid
  // out as run's JSON lays it out (matrices at the top or in their group, statistics in "stats").
  const std::string scenario = "--algo attn-tiled-v2 --n 10 --d 4 --causal --block-rows 4 --block-cols 3";
  const Result run = capture("run " + scenario);
  const Result cmp = capture("run " + scenario + " --compare cpu,cpu");
  INFO(cmp.err);
  REQUIRE(run.status == 0);
  REQUIRE(cmp.status == 0);
  const auto r = flashstep::Json::parse(run.out);
  const auto j = flashstep::Json::parse(cmp.out);
  for (const char* key : {"max_abs_output_diff", "max_rel_m_diff", "max_rel_l_diff"}) CHECK(j[key].get<double>() == 0);
  CHECK(j["steps_compared"].get<int>() == static_cast<int>(r["steps"].size()));
  CHECK_FALSE(j.contains("mismatch"));
  REQUIRE(j.contains("max_diff"));
  const auto& diffs = j["max_diff"];
  REQUIRE(r["stats"].size() == 3);  // m, l, lse
  CHECK(diffs["stats"].size() == r["stats"].size());
  for (const auto& item : r["stats"].items()) {
    const std::string name = item.key();  // a named copy: clang 14 cannot capture a structured binding
    CAPTURE(name);
    REQUIRE(diffs["stats"].contains(name));
    CHECK(diffs["stats"][name].get<double>() == 0);
  }
  REQUIRE(diffs.contains("output"));
  CHECK(diffs["output"].get<double>() == 0);
}

TEST_CASE("run's JSON says the mask by name beside its causal flag") {
  for (const bool causal : {false, true}) {
    const Result r = capture(std::string("run --algo attn-tiled --n 6 --d 2 --steps none") + (causal ? " --causal" : ""));
    REQUIRE(r.status == 0);
    const auto j = flashstep::Json::parse(r.out);
    CHECK(j["causal"].get<bool>() == causal);
    CHECK(j["mask"].get<std::string>() == (causal ? "causal" : "none"));
  }
}
