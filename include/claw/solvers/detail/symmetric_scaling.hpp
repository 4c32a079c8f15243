// claw/solvers/detail/symmetric_scaling.hpp: symmetric_scaling, a positive diagonal D with
// M D^-1 symmetric, found along the coupling graph of M (the LCQP's monotone structure test).
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"

namespace claw {
namespace detail {

/// Finds d > 0 with M D^-1 symmetric (m x m): d_v / d_u = M_uv / M_vu over every coupled pair
/// (u, v), propagated breadth-first from d = 1 at the first pair of each connected group. A
/// coupling |M_uv| <= coupling_zero_fraction max|M| counts as absent; false when only one side of
/// a pair couples, the two sides differ in sign, or the ratios found along two paths differ by
/// more than coupling_ratio_tolerance relative. `visited` and `queue` (size >= m) are scratch.
/// O(m^2), no allocation.
template <typename MatM, typename VecD, typename Flags, typename Queue>
bool symmetric_scaling(const MatM& mm, Eigen::Index m, VecD& d, Flags& visited,
                       Queue& queue) noexcept {
  using Scalar = typename MatM::Scalar;
  using Index = Eigen::Index;
  Scalar m_max = Scalar(0);
  for (Index j = 0; j < m; ++j)
    for (Index i = 0; i < m; ++i) m_max = max_of(m_max, std::fabs(mm.coeff(i, j)));
  const Scalar zero_tol = coupling_zero_fraction<Scalar>() * m_max;
  const Scalar ratio_tol = coupling_ratio_tolerance<Scalar>();
  for (Index i = 0; i < m; ++i) visited.coeffRef(i) = 0;
  for (Index root = 0; root < m; ++root) {
    if (visited.coeff(root) != 0) continue;
    visited.coeffRef(root) = 1;
    d.coeffRef(root) = Scalar(1);
    Index head = 0, tail = 0;
    queue.coeffRef(tail++) = static_cast<int>(root);
    while (head < tail) {
      const Index u = queue.coeff(head++);
      for (Index v = 0; v < m; ++v) {
        if (v == u) continue;
        const Scalar a = mm.coeff(u, v), b = mm.coeff(v, u);
        const bool za = std::fabs(a) <= zero_tol, zb = std::fabs(b) <= zero_tol;
        if (za && zb) continue;
        if (za || zb || !(a * b > Scalar(0))) return false;
        const Scalar dv = d.coeff(u) * a / b;  // d_v / d_u = M_uv / M_vu
        if (visited.coeff(v) == 0) {
          visited.coeffRef(v) = 1;
          d.coeffRef(v) = dv;
          queue.coeffRef(tail++) = static_cast<int>(v);
        } else if (std::fabs(d.coeff(v) - dv) > ratio_tol * d.coeff(v)) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace detail
}  // namespace claw
