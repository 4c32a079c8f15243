// claw/solvers/lcqp/small_lcp.hpp: detail::SmallLcp, the LCP of one or two pairs solved over its
// complementary bases, with the P-matrix certificate that makes that solution the only one.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"

namespace claw {
namespace detail {

/// The LCP 0 <= lambda perp w = c + M lambda >= 0 of m = 1 or 2 pairs, with M known to within E
/// (|M' - M| <= E entrywise, E = unit |oth| |T| from the caller's products) and c to within ec.
///
/// certify(): every principal submatrix M_II (I nonempty) has det M_II > 0 and
/// ||M_II^-1||_inf ||E_II||_inf <= 1/2, det M taken less its rounding dot_rounding(2, |M_00 M_11| +
/// |M_01 M_10|) (the 1/2 leaves room for the rounding of these few operations). Then every M'
/// within E has M'_II = M_II (I + M_II^-1 (M' - M)_II) nonsingular, so its determinant keeps its
/// sign along the segment from M: every such M' is a P-matrix, LCP(c', M') has exactly one
/// solution for every c', and ||M'_II^-1|| <= 2 ||M_II^-1||. A matrix that fails (singular,
/// indefinite, or within E of either) is left to the rest of the monotone path.
///
/// solve(): the exact LCP's solution lambda* lies on one complementary basis I (w*_I = 0, lambda*
/// off I = 0). For each of the bases {}, {0}, {1}, {0, 1}, lambda_I from M_II lambda_I = -c_I and
/// w = c + M lambda are computed with their noise
///   noise_i = ec_i + sum_j E_ij |lambda_j| + dot_rounding(m + 1, |c_i| + sum_j |M_ij lambda_j|),
/// so the exact residual on I is at most |w_i| + noise_i and |lambda*_I - lambda_I| <= delta =
/// 2 ||M_II^-1|| max_I (|w_i| + noise_i). A basis is taken only when it passes strictly:
/// lambda_i > delta on I and w_j > noise_j + sum_I (|M_ji| + E_ji) delta off I (delta and that
/// bound each rounded up by 4 eps relative and the smallest subnormal). Then lambda* is on that
/// basis too (and nondegenerate, so no other basis passes), and solve() returns lambda with the
/// bound delta on its error. A non-finite lambda or w fails (its noise is then not finite). When no
/// basis passes (lambda* within rounding of a degenerate point), the caller goes on without it.
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
    const Scalar det_low = det_ - dot_rounding(2, diagonal + std::fabs(off));
    // ||M^-1||_inf <= ||adj M||_inf / det_low; ||E||_inf the largest row sum.
    inverse_norm_ =
        max_of(m_[1][1] + std::fabs(m_[0][1]), std::fabs(m_[1][0]) + m_[0][0]) / det_low;
    const Scalar e_norm = max_of(e_[0][0] + e_[0][1], e_[1][0] + e_[1][1]);
    return det_low > Scalar(0) && inverse_norm_ * e_norm <= Scalar(0.5);
  }

  /// After certify() returned true: the solution into lambda (size m, >= 0) and the bound `error`
  /// on |lambda - lambda*|_inf. False (lambda untouched) when no basis passes strictly.
  template <typename VectorL>
  bool solve(VectorL& lambda, Scalar& error) const noexcept {
    const int bases = size_ == 1 ? 2 : 4;
    for (int basis = 0; basis < bases; ++basis) {
      Scalar x[2] = {Scalar(0), Scalar(0)};
      if (!strict_basis_point(basis, x, error)) continue;
      for (int i = 0; i < size_; ++i) lambda.coeffRef(i) = x[i];
      return true;
    }
    return false;
  }

 private:
  /// lambda of `basis` (bit i: pair i in I) into x and its error bound delta into `delta`; true
  /// when the basis passes solve()'s strict test.
  bool strict_basis_point(int basis, Scalar (&x)[2], Scalar& delta) const noexcept {
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
    Scalar residual = Scalar(0);  // max over I of |w_i| + noise_i
    for (int i = 0; i < size_; ++i) {
      Scalar from_errors = ec_[i], magnitude = std::fabs(c_[i]);
      w[i] = c_[i];
      for (int j = 0; j < size_; ++j) {
        const Scalar term = m_[i][j] * x[j];
        from_errors += e_[i][j] * std::fabs(x[j]);
        magnitude += std::fabs(term);
        w[i] += term;
      }
      noise[i] = from_errors + dot_rounding(size_ + 1, magnitude);
      if ((basis >> i) & 1) residual = max_of(residual, std::fabs(w[i]) + noise[i]);
    }
    delta = rounded_up(Scalar(2) * inverse_norm * residual);
    for (int i = 0; i < size_; ++i) {
      if ((basis >> i) & 1) {
        if (!(x[i] > delta)) return false;
        continue;
      }
      Scalar reach = noise[i];
      for (int j = 0; j < size_; ++j)
        if ((basis >> j) & 1) reach += (std::fabs(m_[i][j]) + e_[i][j]) * delta;
      if (!(w[i] > rounded_up(reach))) return false;
    }
    return true;
  }

  /// v plus the rounding of the few operations that computed it (v >= 0): v (1 + 4 eps) plus the
  /// smallest subnormal, so that a bound that rounded down or underflowed to 0 still bounds.
  static Scalar rounded_up(Scalar v) noexcept {
    return v * (Scalar(1) + Scalar(4) * machine_epsilon<Scalar>()) +
           std::numeric_limits<Scalar>::denorm_min();
  }

  Scalar m_[2][2] = {}, e_[2][2] = {}, c_[2] = {}, ec_[2] = {};
  Scalar det_ = Scalar(1), inverse_norm_ = Scalar(0);
  int size_ = 0;
};

}  // namespace detail
}  // namespace claw
