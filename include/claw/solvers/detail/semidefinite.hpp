// claw/solvers/detail/semidefinite.hpp: semidefinite_within_bound, whether a symmetric matrix
// known only to an entrywise error bound may be positive semidefinite (pivoted LDL' on both).
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace claw {
namespace detail {

/// True when a positive semidefinite matrix lies within E + floor of the symmetric S (entrywise,
/// to first order in E): a pivoted LDL' of S that carries the bound along. Both S and E (m x m,
/// E >= 0 symmetric) are overwritten; `visited` (size >= m) is scratch. Each step pivots on the
/// largest diagonal S_pp with S_pp > floor + 2 E_pp and updates, for the unvisited i, j,
///   S_ij -= f_i S_pj,  E_ij += |f_i| E_pj + |f_j| E_ip + 2 |f_i f_j| E_pp,  f_i = S_ip / S_pp,
/// the 2 covering the second-order term (the pivot's relative error is below 1/2). When no
/// diagonal qualifies, the rest is taken as 0: it must have no diagonal below -(floor + E_ii) and
/// no off-diagonal above floor + E_ij in magnitude (then that diagonal with its negative entries
/// and off-diagonals set to 0 is positive semidefinite and within the bound). floor covers the
/// elimination's own rounding (semidefinite_pivot_floor).
template <typename MatS, typename MatE, typename Flags>
bool semidefinite_within_bound(MatS& s, MatE& e, Flags& visited, Eigen::Index m,
                               typename MatS::Scalar floor) noexcept {
  using Scalar = typename MatS::Scalar;
  using Index = Eigen::Index;
  for (Index i = 0; i < m; ++i) visited.coeffRef(i) = 0;
  for (Index k = 0; k < m; ++k) {
    Index piv = -1;
    Scalar best = Scalar(0);
    for (Index i = 0; i < m; ++i) {
      const Scalar d = s.coeff(i, i);
      if (visited.coeff(i) == 0 && d > best && d > floor + Scalar(2) * e.coeff(i, i)) {
        best = d;
        piv = i;
      }
    }
    if (piv < 0) break;
    visited.coeffRef(piv) = 1;
    const Scalar e_pp = e.coeff(piv, piv);
    for (Index i = 0; i < m; ++i) {
      if (visited.coeff(i) != 0) continue;
      const Scalar fi = s.coeff(i, piv) / best;
      for (Index j = 0; j < m; ++j) {
        if (visited.coeff(j) != 0) continue;
        const Scalar fj = s.coeff(j, piv) / best;
        s.coeffRef(i, j) -= fi * s.coeff(piv, j);
        e.coeffRef(i, j) += std::fabs(fi) * e.coeff(piv, j) + std::fabs(fj) * e.coeff(i, piv) +
                            Scalar(2) * std::fabs(fi * fj) * e_pp;
      }
    }
  }
  for (Index i = 0; i < m; ++i) {
    if (visited.coeff(i) != 0) continue;
    if (s.coeff(i, i) < -(floor + e.coeff(i, i))) return false;
    for (Index j = 0; j < m; ++j)
      if (visited.coeff(j) == 0 && j != i && std::fabs(s.coeff(i, j)) > floor + e.coeff(i, j))
        return false;
  }
  return true;
}

}  // namespace detail
}  // namespace claw
