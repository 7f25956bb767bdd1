// The command line: `flashstep` (the window), `run`, `lessons`, `shot` and `gif`. The options
// themselves are defined in app/cli_args.h; this runs what they ask for.
#pragma once

namespace flashstep {

// Exit status: 0 success, 2 bad input (one line on stderr naming it; also a request larger
// than the machine's memory), 1 internal error.
int main_cli(int argc, char** argv);

}  // namespace flashstep
