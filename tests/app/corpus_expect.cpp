// Writes the .expected file beside each scenario file of a corpus folder that has none
// (tests/app/corpus.h says what one holds). Run once when a file joins the corpus:
//   build/tests/corpus_expect tests/data/scenarios-v1
// Existing .expected files are never rewritten: they record what the file meant when it came.
#include "tests/app/corpus.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 2) {
    std::fprintf(stderr, "usage: corpus_expect FOLDER\n");
    return 2;
  }
  std::set<fs::path> files;  // sorted, so the output is in a stable order
  for (const auto& e : fs::directory_iterator(argv[1]))
    if (e.path().extension() == ".json") files.insert(e.path());
  int written = 0;
  for (const fs::path& p : files) {
    const std::string out = flashstep::corpus::expected_path(p.string());
    if (fs::exists(out)) continue;
    const flashstep::Json e = flashstep::corpus::expectation(p.string());
    if (e.contains("error")) {
      std::fprintf(stderr, "%s does not open: %s\n", p.string().c_str(), e["error"].get<std::string>().c_str());
      return 1;
    }
    std::ofstream(out) << e.dump(2) << "\n";
    std::printf("wrote %s\n", out.c_str());
    ++written;
  }
  std::printf("%d written\n", written);
  return 0;
}
