// claw/solvers/detail/numerics.hpp: every rounding allowance the solvers use, named, each with its
// one-line derivation; docs/numerics.md states the model these belong to.
#pragma once

#include <Eigen/Core>
#include <limits>

namespace claw {
namespace detail {

/// Machine epsilon of Scalar (twice the unit roundoff u).
template <typename Scalar>
constexpr Scalar machine_epsilon() noexcept {
  return std::numeric_limits<Scalar>::epsilon();
}

/// Rounding of a length-k dot product: |fl(a'x) - a'x| <= gamma_k |a|'|x| + k eta with
/// gamma_k = k u / (1 - k u) <= k eps for k eps < 1 and eta the absolute error of a product that
/// underflows, at most the smallest subnormal (Higham, Accuracy and Stability, 3.1 and 2.1);
/// `magnitude` is |a|'|x|. Bounded here by (k + 1) (eps |a|'|x| + denorm_min).
template <typename Scalar>
Scalar dot_rounding(Eigen::Index k, Scalar magnitude) noexcept {
  return static_cast<Scalar>(k + 1) *
         (machine_epsilon<Scalar>() * magnitude + std::numeric_limits<Scalar>::denorm_min());
}

/// Rounding of a quantity computed through the working-set factors J, R of condition kappa
/// (kappa >= 1, QpFactors::condition in qp/factorization.hpp): the solves with R and the products
/// with J lose about eps kappa relative; 16 covers the few operations chained (x, u, L^-1 n).
template <typename Scalar>
Scalar working_set_rounding(Scalar kappa) noexcept {
  return Scalar(16) * machine_epsilon<Scalar>() * kappa;
}

/// Smallest pivot a Cholesky factorisation of an n x n matrix with largest diagonal d accepts:
/// n eps d (below it the pivot is rounding of the eliminations before it), and at least the
/// smallest normal number (a subnormal pivot has lost its precision).
template <typename Scalar>
Scalar cholesky_pivot_floor(Eigen::Index n, Scalar max_diagonal) noexcept {
  const Scalar relative = static_cast<Scalar>(n) * machine_epsilon<Scalar>() * max_diagonal;
  return relative > std::numeric_limits<Scalar>::min() ? relative
                                                       : std::numeric_limits<Scalar>::min();
}

}  // namespace detail
}  // namespace claw
