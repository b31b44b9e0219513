#pragma once

namespace ar {

// Parses the command line, runs the command, maps ar::Fatal to its exit code.
int cli_main(int argc, char** argv);

}  // namespace ar
