// claw/core/product.hpp: detail::product, the matrix product the solvers and filters use: small
// bounded operands are multiplied coefficient by coefficient, larger ones by Eigen's kernels.
#pragma once

#include <Eigen/Core>

namespace claw {
namespace detail {

/// Largest compile-time bound (MaxRows, MaxCols) of an operand that product() multiplies
/// coefficient by coefficient.
constexpr int kCoefficientProductMaxSize = 32;

/// Whether every compile-time bound of T is finite and at most kCoefficientProductMaxSize.
template <typename T>
constexpr bool small_bounded() noexcept {
  return T::MaxRowsAtCompileTime != Eigen::Dynamic && T::MaxColsAtCompileTime != Eigen::Dynamic &&
         T::MaxRowsAtCompileTime <= kCoefficientProductMaxSize &&
         T::MaxColsAtCompileTime <= kCoefficientProductMaxSize;
}

/// lhs * rhs. When both operands are small_bounded, each coefficient is one dot product
/// (Eigen's lazyProduct): the same value up to the order of the sums, without Eigen's blocked
/// matrix-vector and matrix-matrix kernels, which pay off only beyond these sizes and would add
/// about 5 KB to a firmware image. Otherwise Eigen's product. Assign with .noalias().
template <typename L, typename R>
auto product(const Eigen::MatrixBase<L>& lhs, const Eigen::MatrixBase<R>& rhs) {
  if constexpr (small_bounded<L>() && small_bounded<R>()) {
    return lhs.lazyProduct(rhs);
  } else {
    return lhs.derived() * rhs.derived();
  }
}

}  // namespace detail
}  // namespace claw
