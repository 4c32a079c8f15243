// tests/support/banner.hpp: the one line the test executable prints before its tests, naming the
// configuration it runs (exceptions, allocation counting, reference directory).
#pragma once

namespace claw_test {

/// Prints "claw <version> tests: exceptions .., malloc counter .., reference dir .." to stdout.
void print_banner();

}  // namespace claw_test
