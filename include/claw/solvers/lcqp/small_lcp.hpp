// claw/solvers/lcqp/small_lcp.hpp: detail::SmallLcp, the LCP of one or two pairs solved over its
// complementary bases, with the P-matrix certificate that makes that solution the only one.
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"

namespace claw {
namespace detail {

/// The LCP 0 <= lambda perp w = c + M lambda >= 0 of m = 1 or 2 pairs, with M known to within E
/// (|M' - M| <= E entrywise, E = unit |oth| |T| from the caller's products) and c to within ec.
///
/// certify(): every principal submatrix M_II (I nonempty) has det M_II > 0 and
/// ||M_II^-1||_inf ||E_II||_inf <= 1/2, with det M computed with its rounding taken off (the 1/2
/// leaves room for the rounding of these few operations). Then every M' within E has
/// M'_II = M_II (I + M_II^-1 (M' - M)_II) nonsingular, so its determinant keeps its sign along the
/// segment from M: every such M' is a P-matrix, and LCP(c', M') has exactly one solution for
/// every c'. A matrix that fails (singular, indefinite, or within E of either) is left to
/// Lemke's path.
///
/// solve(): the solution lies on one complementary basis I (w_I = 0, lambda off I = 0): the bases
/// {}, {0}, {1}, {0, 1} in that order, the first whose lambda_I >= -2 ||M_II^-1|| max_I noise and
/// w_j >= -noise_j off I, with noise_i = ec_i + sum_j (E_ij + unit |M_ij|) |lambda_j| the error
/// of w_i from c's and M's errors and w's own rounding. The exact solution's basis passes; a basis
/// that passes first solves, after lambda is clipped at 0, an LCP whose c differs by at most that
/// noise, and a P-matrix LCP's solution moves with c by at most max_I ||M_II^-1|| times the
/// change. The caller verifies the point x = x0 + T lambda on the unscaled problem.
/// Pinned by "SmallLcp: ..." in tests/test_solver_kernels.cpp (the margins in closed form, the
/// solutions by hand and against Lemke) and, inside the solver, by "LCQP monotone path: one or two
/// pairs solved over the bases, P-matrices only" in tests/test_lcqp.cpp.
template <typename Scalar>
class SmallLcp {
 public:
  using Index = Eigen::Index;

  /// Copies M (mm), |oth| |T| (magnitude), c and its rounding (c_err) for m pairs (1 or 2); unit
  /// turns a magnitude into M's error bound. True when the certificate above holds.
  template <typename MatrixM, typename MatrixE, typename VectorC, typename VectorE>
  bool certify(const MatrixM& mm, const MatrixE& magnitude, Scalar unit, const VectorC& c,
               const VectorE& c_err, Index m) noexcept {
    size_ = static_cast<int>(m);
    unit_ = unit;
    for (int i = 0; i < size_; ++i) {
      c_[i] = c.coeff(i);
      ec_[i] = c_err.coeff(i);
      if (!std::isfinite(c_[i]) || !std::isfinite(ec_[i])) return false;
      for (int j = 0; j < size_; ++j) {
        m_[i][j] = mm.coeff(i, j);
        e_[i][j] = unit * magnitude.coeff(i, j);
      }
      // 1 x 1: ||M_ii^-1|| ||E_ii|| = E_ii / M_ii <= 1/2 (false for NaN).
      if (!(m_[i][i] > Scalar(0)) || !(Scalar(2) * e_[i][i] <= m_[i][i])) return false;
    }
    if (size_ == 1) return true;
    const Scalar diagonal = m_[0][0] * m_[1][1], off = m_[0][1] * m_[1][0];
    det_ = diagonal - off;
    // det's rounding: two products and a difference, each within eps of its magnitude.
    const Scalar det_low =
        det_ - Scalar(4) * machine_epsilon<Scalar>() * (diagonal + std::fabs(off));
    // ||M^-1||_inf <= ||adj M||_inf / det_low; ||E||_inf the largest row sum.
    inverse_norm_ =
        max_of(m_[1][1] + std::fabs(m_[0][1]), std::fabs(m_[1][0]) + m_[0][0]) / det_low;
    const Scalar e_norm = max_of(e_[0][0] + e_[0][1], e_[1][0] + e_[1][1]);
    return det_low > Scalar(0) && inverse_norm_ * e_norm <= Scalar(0.5);
  }

  /// After certify() returned true: the solution into lambda (size m, >= 0). False when no basis
  /// passes its test (not expected after the certificate; the caller then goes on as if not
  /// certified).
  template <typename VectorL>
  bool solve(VectorL& lambda) const noexcept {
    const int bases = size_ == 1 ? 2 : 4;
    for (int basis = 0; basis < bases; ++basis) {
      Scalar x[2] = {Scalar(0), Scalar(0)};
      if (!basis_point(basis, x)) continue;
      for (int i = 0; i < size_; ++i) lambda.coeffRef(i) = max_of(x[i], Scalar(0));
      return true;
    }
    return false;
  }

 private:
  /// lambda of `basis` (bit i: pair i in I) into x; true when it passes solve()'s test.
  bool basis_point(int basis, Scalar (&x)[2]) const noexcept {
    Scalar inverse_norm = Scalar(0);
    if (basis == 3) {
      x[0] = (m_[0][1] * c_[1] - m_[1][1] * c_[0]) / det_;
      x[1] = (m_[1][0] * c_[0] - m_[0][0] * c_[1]) / det_;
      inverse_norm = inverse_norm_;
    } else if (basis != 0) {
      const int i = basis - 1;
      x[i] = -c_[i] / m_[i][i];
      inverse_norm = Scalar(1) / m_[i][i];
    }
    Scalar noise[2], w[2];
    Scalar noise_in_basis = Scalar(0);
    for (int i = 0; i < size_; ++i) {
      noise[i] = ec_[i];
      w[i] = c_[i];
      for (int j = 0; j < size_; ++j) {
        noise[i] += (e_[i][j] + unit_ * std::fabs(m_[i][j])) * std::fabs(x[j]);
        w[i] += m_[i][j] * x[j];
      }
      if ((basis >> i) & 1) noise_in_basis = max_of(noise_in_basis, noise[i]);
    }
    const Scalar lambda_tol = Scalar(2) * inverse_norm * noise_in_basis;
    for (int i = 0; i < size_; ++i) {
      const bool in_basis = ((basis >> i) & 1) != 0;
      if (in_basis ? !(x[i] >= -lambda_tol) : !(w[i] >= -noise[i])) return false;
    }
    return true;
  }

  Scalar m_[2][2] = {}, e_[2][2] = {}, c_[2] = {}, ec_[2] = {};
  Scalar unit_ = Scalar(0), det_ = Scalar(1), inverse_norm_ = Scalar(0);
  int size_ = 0;
};

}  // namespace detail
}  // namespace claw
