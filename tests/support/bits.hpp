// tests/support/bits.hpp: bit-for-bit comparison of two vectors, for tests that promise the same
// numbers (tells -0 from +0; a NaN matches only a NaN of the same bits).
#pragma once

#include <Eigen/Core>
#include <cstring>

namespace claw_test {

template <typename A, typename B>
bool same_bits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  using S = typename A::Scalar;
  if (a.size() != b.size()) return false;
  for (Eigen::Index j = 0; j < a.size(); ++j) {
    const S x = a.coeff(j), y = b.coeff(j);
    if (std::memcmp(&x, &y, sizeof(S)) != 0) return false;
  }
  return true;
}

}  // namespace claw_test
