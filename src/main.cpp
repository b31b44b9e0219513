// All logic lives in the ar_cli library, which the tests link too.
#include "autoresearch/cli/cli.h"

int main(int argc, char** argv) { return ar::cli_main(argc, argv); }
