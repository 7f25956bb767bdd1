#include "app/cli.h"

int main(int argc, char** argv) { return flashstep::main_cli(argc, argv); }
