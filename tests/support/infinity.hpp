// tests/support/infinity.hpp: kInfinity<S> and kInf (its double), the infinity the tests and the
// readers write open bounds with, defined once (some test sources compile as one unity group).
#pragma once

#include <limits>

template <typename S>
inline constexpr S kInfinity = std::numeric_limits<S>::infinity();
inline constexpr double kInf = kInfinity<double>;
