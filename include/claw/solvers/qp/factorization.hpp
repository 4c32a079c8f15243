// claw/solvers/qp/factorization.hpp: QpFactors, the factors J and R of the dual active-set method
// for Q = L L' and a working set of q normals, updated by Givens rotations as normals come and go.
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/core/product.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/detail/qp_linalg.hpp"

namespace claw {
namespace detail {

/// For Q = L L' (n x n, positive definite) and the q signed normals N of a working set W (the
/// columns of N, in W's order): J = L^-T Qr and an upper-triangular R with L^-1 N = Qr [R; 0]
/// (Qr orthogonal). The first q columns of J (J1) span the directions that move W's constraints,
/// the others (J2) the directions that keep them: a Q-orthogonal basis of W's null space. Column k
/// of R is J' n_k. Every operation is O(n^2) or less; nothing allocates after resize().
template <typename Scalar, int N, int MaxN>
class QpFactors {
 public:
  using Index = Eigen::Index;
  using Matrix = Eigen::Matrix<Scalar, N, N, Eigen::ColMajor, MaxN, MaxN>;
  using VectorType = Vector<Scalar, N, MaxN>;

  /// n variables, no Hessian factorised yet (J = 0), W empty.
  void resize(Index n) {
    for (Matrix* matrix : {&j0_, &j_, &r_}) matrix->setZero(n, n);
    q_ = 0;
  }

  /// Factorises the symmetric part of q: J0 = L^-T P (reversed columns), the J of an empty W.
  /// False (J0 unchanged, J and R overwritten) when a Cholesky pivot is below
  /// cholesky_pivot_floor: q is not positive definite to working precision.
  template <typename DQ>
  bool factorize(const Eigen::MatrixBase<DQ>& q) noexcept {
    for (Index c = 0; c < n(); ++c)
      for (Index i = c; i < n(); ++i)
        r_.coeffRef(i, c) = Scalar(0.5) * (q.coeff(i, c) + q.coeff(c, i));
    q_ = 0;
    if (!cholesky_lower_in_place(r_, n())) return false;
    inverse_factor_reversed(r_, j0_, n());
    return true;
  }

  /// W empty: J = J0.
  void reset() noexcept {
    j_ = j0_;
    q_ = 0;
  }

  /// q, the number of normals in W.
  Index size() const noexcept { return q_; }
  const Matrix& j() const noexcept { return j_; }

  /// d = J' (sign e_c), the direction of the bound on x_c. Returns one past d's last nonzero (at
  /// least q): the rotations of append() stop there.
  Index bound_direction(Index c, int sign, VectorType& d) const noexcept {
    d = j_.row(c).transpose();
    return signed_direction(sign, d);
  }

  /// d = J' (sign a) for a row a of A; returns as bound_direction().
  template <typename DR>
  Index row_direction(const Eigen::MatrixBase<DR>& a, int sign, VectorType& d) const noexcept {
    d.noalias() = detail::product(j_.transpose(), a.transpose());
    return signed_direction(sign, d);
  }

  /// W's conditioning kappa = max_k ||R(0..k, k)|| / |R_kk| (1 for an empty W): one over the
  /// smallest sine with which a member of W joined the members before it (column k of R is J' n_k,
  /// so this holds after removals too). O(q^2).
  Scalar condition() const noexcept {
    Scalar kappa2 = Scalar(1);
    for (Index k = 0; k < q_; ++k) {
      const Scalar rkk2 = r_.coeff(k, k) * r_.coeff(k, k);
      const Scalar column2 = r_.col(k).head(k + 1).squaredNorm();
      if (column2 > kappa2 * rkk2) kappa2 = column2 / rkk2;
    }
    return std::sqrt(kappa2);
  }

  /// Whether the normal with direction d (nonzero up to end) is dependent on W's normals; also
  /// returns ||d2||^2, the squared norm of d's part outside W (d2 = J2' n).
  /// The test is on the sine ||d2|| / ||d|| of the angle between the normal and W's span (in the
  /// metric of Q), against the larger of two allowances: dependence_tolerance, and W's rounding
  /// working_set_rounding(kappa): J2 is computed to about eps kappa, so a smaller ||d2|| is W's
  /// rounding, not a new direction. (The product dependence_tolerance * kappa would be too wide:
  /// it drops real directions of moderately conditioned working sets; docs/numerics.md.)
  bool dependent(const VectorType& d, Index end, Scalar dependence_tolerance,
                 Scalar& d2_norm2) const noexcept {
    d2_norm2 = Scalar(0);
    if (q_ >= n() || end <= q_) return true;
    d2_norm2 = d.segment(q_, end - q_).squaredNorm();
    if (!(d2_norm2 > Scalar(0))) return true;
    const Scalar d_norm2 = d2_norm2 + d.head(q_).squaredNorm();
    const Scalar rounding = working_set_rounding(condition());
    const Scalar rounding2 = rounding * rounding;
    const Scalar tol2 = dependence_tolerance * dependence_tolerance;
    return !(d2_norm2 > (tol2 > rounding2 ? tol2 : rounding2) * d_norm2);
  }

  /// Appends the normal with direction d (nonzero up to end, independent of W) as W's member q:
  /// rotates d's tail into position q, J's columns alike, and writes R's column q. d is consumed.
  void append(VectorType& d, Index end) noexcept {
    const Index q = q_;
    for (Index k = end - 1; k > q; --k) {
      if (d.coeff(k) == Scalar(0)) continue;
      Scalar cs, sn;
      d.coeffRef(k - 1) = make_givens(d.coeff(k - 1), d.coeff(k), cs, sn);
      d.coeffRef(k) = Scalar(0);
      rotate_columns(j_, n(), k - 1, k, cs, sn);
    }
    for (Index i = 0; i <= q; ++i) r_.coeffRef(i, q) = d.coeff(i);
    q_ = q + 1;
  }

  /// Removes W's member k: shifts R's columns left and restores its triangle by rotations of rows
  /// (k, k+1), (k+1, k+2), ... applied to J's columns alike.
  void remove(Index k) noexcept {
    const Index q = q_;
    for (Index col = k; col + 1 < q; ++col)
      for (Index i = 0; i <= col + 1; ++i) r_.coeffRef(i, col) = r_.coeff(i, col + 1);
    for (Index col = k; col + 1 < q; ++col) {
      Scalar cs, sn;
      r_.coeffRef(col, col) = make_givens(r_.coeff(col, col), r_.coeff(col + 1, col), cs, sn);
      r_.coeffRef(col + 1, col) = Scalar(0);
      rotate_rows(r_, col + 1, q - 1, col, col + 1, cs, sn);
      rotate_columns(j_, n(), col, col + 1, cs, sn);
    }
    q_ = q - 1;
  }

  /// Member k's normal changes sign (R's column k changes sign; J is unchanged).
  void flip(Index k) noexcept {
    for (Index i = 0; i <= k; ++i) r_.coeffRef(i, k) = -r_.coeff(i, k);
  }

  /// Solves R(0:q, 0:q) out = rhs (upper triangular, back substitution); out may alias rhs.
  template <typename DIn, typename DOut>
  void solve_r(const DIn& rhs, DOut& out) const noexcept {
    for (Index k = q_ - 1; k >= 0; --k) {
      Scalar s = rhs.coeff(k);
      for (Index i = k + 1; i < q_; ++i) s -= r_.coeff(k, i) * out.coeff(i);
      out.coeffRef(k) = s / r_.coeff(k, k);
    }
  }

  /// Solves R(0:q, 0:q)' v = v in place (lower triangular, forward substitution).
  template <typename D>
  void solve_r_transposed(D& v) const noexcept {
    for (Index k = 0; k < q_; ++k) {
      Scalar s = v.coeff(k);
      for (Index i = 0; i < k; ++i) s -= r_.coeff(i, k) * v.coeff(i);
      v.coeffRef(k) = s / r_.coeff(k, k);
    }
  }

 private:
  Index n() const noexcept { return j0_.rows(); }

  /// d = sign d; returns one past d's last nonzero (at least q).
  Index signed_direction(int sign, VectorType& d) const noexcept {
    if (sign < 0) d = -d;
    Index end = n();
    while (end > q_ && d.coeff(end - 1) == Scalar(0)) --end;
    return end;
  }

  Index q_ = 0;
  Matrix j0_;  // L^-T P (reversed columns): J for the empty working set
  Matrix j_;   // J for W
  Matrix r_;   // R (upper triangle of the top-left q x q block); scratch in factorize()
};

}  // namespace detail
}  // namespace claw
