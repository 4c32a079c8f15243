// tests/main.cpp: a Catch2 v2 runner compiled from source, for builds that cannot link Catch2's
// prebuilt one (-fno-exceptions: CLAW_TEST_PREBUILT_CATCH_MAIN=OFF). Prints the configuration line.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/banner.hpp"

int main(int argc, char* argv[]) {
  claw_test::print_banner();
  return Catch::Session().run(argc, argv);
}
