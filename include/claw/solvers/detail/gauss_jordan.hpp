// claw/solvers/detail/gauss_jordan.hpp: gauss_jordan, Gauss-Jordan elimination with partial
// pivoting of a square block in place, [E | rest] -> [I | E^-1 rest] (the LCQP's dense kernel).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <utility>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"

namespace claw {
namespace detail {

/// Eliminates lu (rows x cols used, the first `rows` columns the square block E) in place with
/// partial pivoting: afterwards lu = [I | E^-1 rest] (untouched when E is exactly I). False (lu
/// then scratch) when E is singular: a pivot at most elimination_pivot_floor(max |E_ij|). O(rows^2
/// cols), no allocation.
template <typename Matrix>
bool gauss_jordan(Matrix& lu, Eigen::Index rows, Eigen::Index cols) noexcept {
  using Scalar = typename Matrix::Scalar;
  using Index = Eigen::Index;
  bool identity = true;  // E = I exactly: lu is [I | rest] already
  for (Index i = 0; i < rows && identity; ++i)
    for (Index j = 0; j < rows; ++j)
      if (lu.coeff(i, j) != (i == j ? Scalar(1) : Scalar(0))) {
        identity = false;
        break;
      }
  if (identity) return true;
  Scalar scale = Scalar(0);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < rows; ++j) scale = max_of(scale, std::fabs(lu.coeff(i, j)));
  if (!(scale > Scalar(0))) return false;
  const Scalar tiny = elimination_pivot_floor(scale);
  for (Index k = 0; k < rows; ++k) {
    Index piv = k;
    for (Index i = k + 1; i < rows; ++i)
      if (std::fabs(lu.coeff(i, k)) > std::fabs(lu.coeff(piv, k))) piv = i;
    if (!(std::fabs(lu.coeff(piv, k)) > tiny)) return false;
    if (piv != k)
      for (Index j = 0; j < cols; ++j) std::swap(lu.coeffRef(k, j), lu.coeffRef(piv, j));
    const Scalar inv = Scalar(1) / lu.coeff(k, k);
    for (Index j = k; j < cols; ++j) lu.coeffRef(k, j) *= inv;
    for (Index i = 0; i < rows; ++i) {
      if (i == k) continue;
      const Scalar f = lu.coeff(i, k);
      if (f == Scalar(0)) continue;
      for (Index j = k; j < cols; ++j) lu.coeffRef(i, j) -= f * lu.coeff(k, j);
    }
  }
  return true;
}

}  // namespace detail
}  // namespace claw
