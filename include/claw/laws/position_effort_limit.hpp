// claw/laws/position_effort_limit.hpp: PositionEffortLimit, a symmetric effort limit that depends
// on the joint position through a piecewise-linear table per joint (a linkage's or a gearbox's
// curve).
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// |u| <= L_j(q) per joint, L_j piecewise linear through the table's points (position[i, j],
/// limit[i, j]), i = 0 .. points() - 1, positions strictly increasing per joint:
///   L(q) = limit[i] + (limit[i+1] - limit[i]) (q - position[i]) / (position[i+1] - position[i])
/// on [position[i], position[i+1]), exactly limit[i] at each table point; outside the table the
/// end value holds (L(q) = limit[0] below position[0], limit[last] above the last position).
/// A table of 0 points limits nothing. Up to MaxPoints points (fixed capacity, no heap after
/// construction).
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_, int MaxPoints_ = 8>
class PositionEffortLimit {
  static_assert(MaxPoints_ >= 2, "PositionEffortLimit: MaxPoints >= 2");

 public:
  using Scalar = Scalar_;  ///< the scalar type (float or double)
  /// One column per joint, one row per table point.
  using Table = Eigen::Matrix<Scalar, Dynamic, N_, Eigen::ColMajor, MaxPoints_, MaxN_>;

  PositionEffortLimit() : PositionEffortLimit(N_ == Dynamic ? 0 : N_) {}

  /// No limit on n joints (allocates here for dynamic sizes).
  explicit PositionEffortLimit(Eigen::Index n) {
    position_.setZero(MaxPoints_, n);
    limit_.setZero(MaxPoints_, n);
  }

  Eigen::Index size() const noexcept { return position_.cols(); }  ///< joint count n
  Eigen::Index points() const noexcept { return points_; }         ///< 0 ..= MaxPoints; 0: no limit

  /// Installs a table of position.rows() points for size() joints: SizeMismatch (shapes differ,
  /// more than MaxPoints rows, or another joint count), InvalidParameter (a position not finite or
  /// not strictly increasing down its column, a limit negative, NaN or +inf). Old table kept on
  /// failure. 0 rows: no limit.
  template <typename DP, typename DL>
  Status configure(const Eigen::MatrixBase<DP>& position,
                   const Eigen::MatrixBase<DL>& limit) noexcept {
    const Eigen::Index k = position.rows();
    if (position.cols() != size() || limit.cols() != size() || limit.rows() != k || k > MaxPoints_)
      return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      for (Eigen::Index i = 0; i < k; ++i) {
        const Scalar x = position.coeff(i, j), y = limit.coeff(i, j);
        if (!std::isfinite(x) || !std::isfinite(y) || y < Scalar(0))
          return Status::InvalidParameter;
        if (i > 0 && !(x > position.coeff(i - 1, j))) return Status::InvalidParameter;
      }
    position_.topRows(k) = position;
    limit_.topRows(k) = limit;
    points_ = k;
    return Status::Ok;
  }

  /// L_j(q) (+inf for a table of 0 points).
  Scalar limit(Eigen::Index j, Scalar q) const noexcept {
    if (points_ == 0) return infinity<Scalar>();
    const Eigen::Index last = points_ - 1;
    if (!(q > position_.coeff(0, j))) return limit_.coeff(0, j);
    if (!(q < position_.coeff(last, j))) return limit_.coeff(last, j);
    Eigen::Index i = 0;
    while (q >= position_.coeff(i + 1, j)) ++i;  // position[i] <= q < position[i + 1]
    const Scalar x0 = position_.coeff(i, j), x1 = position_.coeff(i + 1, j);
    const Scalar y0 = limit_.coeff(i, j), y1 = limit_.coeff(i + 1, j);
    return y0 + (y1 - y0) * ((q - x0) / (x1 - x0));
  }

  /// u_j <- clip(u_j, -L_j(q_j), L_j(q_j)) in place. SizeMismatch, NonFiniteInput (u or q): u
  /// untouched.
  template <typename DU, typename DQ>
  Status clamp(const Eigen::MatrixBase<DU>& u_inout,
               const Eigen::MatrixBase<DQ>& q) const noexcept {
    auto& u = const_cast<Eigen::MatrixBase<DU>&>(u_inout);
    if (size() == 0 || !all_have_size(size(), u, q)) return Status::SizeMismatch;
    if (!all_finite(u) || !all_finite(q)) return Status::NonFiniteInput;
    clamp_unchecked(u, q);
    return Status::Ok;
  }

  /// clamp() without its checks, for callers that made them (sizes, finite u and q).
  template <typename DU, typename DQ>
  void clamp_unchecked(Eigen::MatrixBase<DU>& u, const Eigen::MatrixBase<DQ>& q) const noexcept {
    if (points_ == 0) return;
    for (Eigen::Index j = 0; j < size(); ++j) {
      const Scalar bound = limit(j, q.coeff(j));
      u.coeffRef(j) = clip(u.coeff(j), -bound, bound);
    }
  }

 private:
  Table position_;
  Table limit_;
  Eigen::Index points_ = 0;
};

}  // namespace claw
