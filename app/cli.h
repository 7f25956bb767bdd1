// The command line: `flashstep` (the window), `flashstep run`, `flashstep lessons`.
#pragma once

namespace flashstep {

// Exit status: 0 success, 2 bad input (one line on stderr naming it), 1 internal error.
int main_cli(int argc, char** argv);

}  // namespace flashstep
