// claw/solvers/detail/semidefinite.hpp: semidefinite_within_bound, whether a symmetric matrix
// known only to an entrywise error bound may be positive semidefinite (pivoted LDL' on both).
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace claw {
namespace detail {

/// Pivoted LDL' of the symmetric S (m x m, finite) that carries its entrywise error bound E >= 0
/// (symmetric) along. False only when no positive semidefinite matrix lies within E of S (floor
/// added for the elimination's own rounding, semidefinite_pivot_floor): a matrix that is
/// semidefinite up to its bound is never refused. S and E are overwritten; `visited` (size >= m)
/// is scratch. Each step pivots on the largest diagonal with S_pp > floor + 2 E_pp and updates,
/// for the unvisited i, j, S_ij -= f_i S_pj (f_i = S_ip / S_pp) and
///   E_ij += r (|f_i| E_pj + |f_j| E_ip + |f_i f_j| E_pp + E_ip E_pj / S_pp),
///   r = S_pp / (S_pp - E_pp),
/// which bounds how far the Schur complement of any matrix within E lies from S's (exactly, not
/// to first order). When no diagonal qualifies, each semidefinite matrix P within E of the rest R
/// has P_ii >= 0 and |P_ij| <= sqrt(P_ii P_jj): R_ii >= -E_ii and
/// |R_ij| <= E_ij + sqrt(max(R_ii + E_ii, 0) max(R_jj + E_jj, 0)) are required.
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
    const Scalar r = best / (best - e_pp);
    for (Index i = 0; i < m; ++i) {
      if (visited.coeff(i) != 0) continue;
      const Scalar fi = s.coeff(i, piv) / best;
      for (Index j = 0; j < m; ++j) {
        if (visited.coeff(j) != 0) continue;
        const Scalar fj = s.coeff(j, piv) / best;
        s.coeffRef(i, j) -= fi * s.coeff(piv, j);
        e.coeffRef(i, j) +=
            r * (std::fabs(fi) * e.coeff(piv, j) + std::fabs(fj) * e.coeff(i, piv) +
                 std::fabs(fi * fj) * e_pp + e.coeff(i, piv) * e.coeff(piv, j) / best);
      }
    }
  }
  for (Index i = 0; i < m; ++i) {
    if (visited.coeff(i) != 0) continue;
    const Scalar top_i = s.coeff(i, i) + floor + e.coeff(i, i);
    if (top_i < Scalar(0)) return false;
    for (Index j = 0; j < m; ++j) {
      if (visited.coeff(j) != 0 || j == i) continue;
      const Scalar top_j = s.coeff(j, j) + floor + e.coeff(j, j);
      if (std::fabs(s.coeff(i, j)) >
          floor + e.coeff(i, j) + std::sqrt(top_i * (top_j > Scalar(0) ? top_j : Scalar(0))))
        return false;
    }
  }
  return true;
}

}  // namespace detail
}  // namespace claw
