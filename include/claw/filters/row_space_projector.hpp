// claw/filters/row_space_projector.hpp: detail::RowSpaceProjector, P = I - U'U for U an orthonormal
// basis of the row space of three rows (FLIQC's P_null = I - pinv(J_pos) J_pos, any rank).
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/core/product.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"

namespace claw {
namespace detail {

/// The projector onto the orthogonal complement of the row space of three rows of n entries,
/// kept as the orthonormal basis U (rank() rows): P v = v - U'(U v), never formed as n x n in the
/// filter's cycle. Sizes as FliqcFilter's joints: N fixed (MaxN = N) or Dynamic with MaxN > 0.
template <typename Scalar, int N, int MaxN>
class RowSpaceProjector {
 public:
  using Index = Eigen::Index;
  using VectorN = Vector<Scalar, N, MaxN>;
  using MatrixNN = Eigen::Matrix<Scalar, N, N, Eigen::ColMajor, MaxN, MaxN>;

  /// P = I (rank 0).
  void clear() noexcept { rank_ = 0; }

  /// U from the first three rows of `rows` (n = rows.cols() columns) by modified Gram-Schmidt: a
  /// row whose remainder has norm <= 1e-10 (float: 1e-5) times the largest row norm is dependent
  /// and skipped. All three rows zero: P = I.
  template <typename DR>
  void build(const Eigen::MatrixBase<DR>& rows) noexcept {
    const Index n = fixed_or<N>(rows.cols());
    basis_.resize(3, n);  // within MaxN: no allocation
    rank_ = 0;
    // The three rows' squared norms as three interleaved sums (each in the order j = 0..n-1).
    Scalar row2[3] = {Scalar(0), Scalar(0), Scalar(0)};
    for (Index j = 0; j < n; ++j)
      for (Index r = 0; r < 3; ++r) row2[r] += rows.coeff(r, j) * rows.coeff(r, j);
    const Scalar scale2 = max_of(row2[0], max_of(row2[1], row2[2]));
    if (!(scale2 > Scalar(0))) return;
    const Scalar tol = (sizeof(Scalar) <= 4 ? Scalar(1e-5) : Scalar(1e-10)) * std::sqrt(scale2);
    for (Index r = 0; r < 3; ++r) {
      const Index k = rank_;
      for (Index j = 0; j < n; ++j) basis_.coeffRef(k, j) = rows.coeff(r, j);
      for (Index b = 0; b < k; ++b) {
        Scalar dot = Scalar(0);
        for (Index j = 0; j < n; ++j) dot += basis_.coeff(k, j) * basis_.coeff(b, j);
        for (Index j = 0; j < n; ++j) basis_.coeffRef(k, j) -= dot * basis_.coeff(b, j);
      }
      Scalar norm2 = row2[r];  // the row unchanged when nothing was subtracted (k = 0)
      if (k > 0) {
        norm2 = Scalar(0);
        for (Index j = 0; j < n; ++j) norm2 += basis_.coeff(k, j) * basis_.coeff(k, j);
      }
      const Scalar norm = std::sqrt(norm2);
      if (!(norm > tol)) continue;
      const Scalar inv = Scalar(1) / norm;
      for (Index j = 0; j < n; ++j) basis_.coeffRef(k, j) *= inv;
      ++rank_;
    }
  }

  /// The number of orthonormal rows in U (0: P = I).
  Index rank() const noexcept { return rank_; }

  /// v <- P v = v - U'(U v).
  void apply(VectorN& v) const noexcept {
    const Index n = fixed_or<N>(v.size());
    for (Index k = 0; k < rank_; ++k) {
      Scalar dot = Scalar(0);
      for (Index j = 0; j < n; ++j) dot += basis_.coeff(k, j) * v.coeff(j);
      for (Index j = 0; j < n; ++j) v.coeffRef(j) -= dot * basis_.coeff(k, j);
    }
  }

  /// P formed as an n x n matrix (for inspection).
  MatrixNN matrix(Index n) const noexcept {
    MatrixNN out = MatrixNN::Identity(n, n);
    for (Index k = 0; k < rank_; ++k)
      out.noalias() -= product(basis_.row(k).head(n).transpose(), basis_.row(k).head(n));
    return out;
  }

 private:
  Index rank_ = 0;
  Eigen::Matrix<Scalar, 3, N, Eigen::RowMajor, 3, MaxN> basis_;
};

}  // namespace detail
}  // namespace claw
