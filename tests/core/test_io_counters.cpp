// The IO counters as a list: the list holds every member of IoCounters, and what sums, compares
// and reports them (--heads, ==, run's JSON) goes through every counter of it.
#include "core/heads.h"
#include "core/io_counters.h"
#include "core/report.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace flashstep;

namespace {

// Counters that differ from one another and from 0: counter k holds base + k.
IoCounters distinct(std::uint64_t base) {
  IoCounters io;
  std::uint64_t k = 0;
  for (const IoCounterInfo& c : kIoCounters) io.*c.field = base + k++;
  return io;
}

}  // namespace

TEST_CASE("io counters: the list names every member once, with a unit and a help line") {
  // Each counter is 8 bytes; a member outside the list would make the struct larger.
  CHECK(sizeof(IoCounters) == kIoCounterCount * sizeof(std::uint64_t));
  std::set<std::string> keys, names;
  for (std::size_t a = 0; a < kIoCounterCount; ++a) {
    const IoCounterInfo& c = kIoCounters[a];
    CHECK(keys.insert(std::string(c.key)).second);
    CHECK(names.insert(std::string(c.name)).second);
    for (std::size_t b = 0; b < a; ++b) CHECK(kIoCounters[b].field != c.field);
    CHECK(!c.unit.empty());
    CHECK(!c.help.empty());
  }
  // Setting each member through the list reaches a different byte of the struct.
  const IoCounters io = distinct(100);
  CHECK(io.hbm_reads == 100);
  CHECK(io.exps == 100 + kIoCounterCount - 1);
}

TEST_CASE("io counters: run's JSON keeps its six keys and writes every counter of the list") {
  Recording rec;
  rec.io = distinct(7);
  const Json j = recording_json(rec, false, false);
  // The keys run's JSON has always had, written out here rather than taken from the list.
  const char* const kept[] = {"hbm_reads", "hbm_writes", "sram_reads", "sram_writes", "flops", "exps"};
  for (const char* key : kept) CHECK(j["io"].contains(key));
  REQUIRE(j["io"].size() == kIoCounterCount);
  for (const IoCounterInfo& c : kIoCounters) {
    CAPTURE(std::string(c.key));
    CHECK(j["io"][std::string(c.key)].get<std::uint64_t>() == rec.io.*c.field);
  }
  CHECK(j["io"]["hbm_reads"].get<std::uint64_t>() == 7);
  CHECK(j["io"]["exps"].get<std::uint64_t>() == 12);
}

TEST_CASE("io counters: heads sum every counter, and two counts differing in any one are unequal") {
  std::vector<Recording> heads(3);
  heads[0].io = distinct(1);
  heads[1].io = distinct(1000);
  heads[2].io = distinct(50000);
  const Recording stacked = stack_heads(heads);
  CHECK(stacked.heads == 3);
  std::uint64_t k = 0;
  for (const IoCounterInfo& c : kIoCounters) {
    CAPTURE(std::string(c.key));
    CHECK(stacked.io.*c.field == (1 + k) + (1000 + k) + (50000 + k));
    ++k;
  }
  for (const IoCounterInfo& c : kIoCounters) {
    IoCounters a = distinct(3), b = distinct(3);
    CHECK(a == b);
    b.*c.field += 1;
    CHECK(a != b);
  }
}
