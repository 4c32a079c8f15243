// tests/support/infinity.hpp: kInf, the double infinity the law tests write open bounds with,
// defined once for the sources that tests/CMakeLists.txt compiles together as one unity group.
#pragma once

#include <limits>

inline constexpr double kInf = std::numeric_limits<double>::infinity();
