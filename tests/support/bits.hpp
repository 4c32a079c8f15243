// tests/support/bits.hpp: bit-for-bit comparison of two matrices or vectors, for tests that
// promise the same numbers (claw::detail::same_bits per entry: tells -0 from +0).
#pragma once

#include <Eigen/Core>

#include "claw/core/bits.hpp"

namespace claw_test {

/// The same bits in every entry: two vectors (a row may be compared with a column) of the same
/// size, or two matrices of the same shape.
template <typename A, typename B>
bool same_bits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  if constexpr (A::IsVectorAtCompileTime && B::IsVectorAtCompileTime) {
    if (a.size() != b.size()) return false;
    for (Eigen::Index k = 0; k < a.size(); ++k)
      if (!claw::detail::same_bits(a.coeff(k), b.coeff(k))) return false;
  } else {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      for (Eigen::Index i = 0; i < a.rows(); ++i)
        if (!claw::detail::same_bits(a.coeff(i, j), b.coeff(i, j))) return false;
  }
  return true;
}

}  // namespace claw_test
