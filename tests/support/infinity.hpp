// tests/support/infinity.hpp: kInf, the double infinity the tests write open bounds with, defined
// once (tests/CMakeLists.txt compiles some test sources together as one unity group).
#pragma once

#include <limits>

inline constexpr double kInf = std::numeric_limits<double>::infinity();
