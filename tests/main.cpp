// tests/main.cpp: the Catch2 v2 runner of claw's test executable.
// It prints which configuration runs (exceptions, sanitizers, allocation counting) before the tests.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "claw/core/config.hpp"
#include "support/alloc_counter.hpp"
#include "support/reference.hpp"

int main(int argc, char* argv[]) {
  std::printf("claw %s tests: exceptions %s, malloc counter %s, reference dir %s\n",
              CLAW_VERSION_STRING, CLAW_HAS_EXCEPTIONS ? "on" : "off",
              claw_test::allocation_counting_available() ? "on" : "off (sanitizer build)",
              claw_test::reference_dir().c_str());
  return Catch::Session().run(argc, argv);
}
