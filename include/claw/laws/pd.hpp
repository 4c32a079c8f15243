// claw/laws/pd.hpp: the PD law on its own, in parallel form (u = kp e + kd de) or series form
// (u = kp (e + Td de), gym_jiminy's), with effort limits; stateless.
#pragma once

#include <cmath>
#include <cstdint>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/effort_clamp.hpp"

namespace claw {

/// How the derivative gain is read.
enum class PdForm : std::uint8_t {
  Parallel,  ///< u = kp (q* - q) + kd (v* - v), kd [effort s/pos]
  Series,    ///< u = kp ((q* - q) + kd (v* - v)), kd = Td a time constant [s] (gym_jiminy)
};

/// PD effort for N joints: u from `form`, then clipped to `limits` at the measured velocity v.
/// kp, kd >= 0 finite. Returns SizeMismatch when a vector's size differs from q's,
/// NonFiniteInput for NaN/Inf inputs, InvalidParameter for bad gains or limits
/// (validate_effort_limits), all with out untouched; NumericalOverflow (that joint's out held)
/// when huge inputs overflow.
template <typename DT, typename DTV, typename DQ, typename DV, typename DKp, typename DKd,
          typename Scalar, int N, int MaxN, typename DOut>
Status pd_effort(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& target_velocity,
                 const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DV>& v,
                 const Eigen::MatrixBase<DKp>& kp, const Eigen::MatrixBase<DKd>& kd, PdForm form,
                 const EffortLimits<Scalar, N, MaxN>& limits,
                 const Eigen::MatrixBase<DOut>& out) noexcept {
  const Eigen::Index n = q.size();
  if (!all_have_size(n, target, target_velocity, v, kp, kd, out)) return Status::SizeMismatch;
  if (!all_finite(target) || !all_finite(target_velocity) || !all_finite(q) || !all_finite(v))
    return Status::NonFiniteInput;
  for (Eigen::Index j = 0; j < n; ++j)
    if (!std::isfinite(kp.coeff(j)) || !std::isfinite(kd.coeff(j)) || kp.coeff(j) < Scalar(0) ||
        kd.coeff(j) < Scalar(0))
      return Status::InvalidParameter;
  const Status limits_status = validate_effort_limits(limits, n);
  if (limits_status != Status::Ok) return limits_status;
  auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
  Status status = Status::Ok;
  for (Eigen::Index j = 0; j < n; ++j) {
    const Scalar e = target.coeff(j) - q.coeff(j);
    const Scalar de = target_velocity.coeff(j) - v.coeff(j);
    const Scalar u = (form == PdForm::Series) ? kp.coeff(j) * (e + kd.coeff(j) * de)
                                              : kp.coeff(j) * e + kd.coeff(j) * de;
    Scalar lower, upper;
    detail::effort_interval(limits, j, v.coeff(j), lower, upper);
    const Scalar u_sat = clip(u, lower, upper);
    if (!std::isfinite(u_sat)) {
      status = Status::NumericalOverflow;
      continue;
    }
    effort.coeffRef(j) = u_sat;
  }
  return status;
}

}  // namespace claw
