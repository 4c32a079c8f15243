// claw/blocks/pd_kernel.hpp: the PD block's kernels over plain arrays (one joint's effort, the
// jiminy-mode update in stack-sized chunks, the overlap and flag tests) and its parameter checks.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/integrators/zoh.hpp"

namespace claw {

namespace detail {

/// tau = kp ((q* - q) + kd (v* - v)), clipped to [-limit, limit] (gym_jiminy's order).
/// Returns false, leaving `out` alone, when the result is not finite (overflow of huge inputs).
template <typename Scalar>
inline bool pd_joint_effort(Scalar q_target, Scalar v_target, Scalar q, Scalar v, Scalar kp,
                            Scalar kd, Scalar limit, Scalar& out) noexcept {
  const Scalar effort = clip(kp * ((q_target - q) + kd * (v_target - v)), -limit, limit);
  if (!std::isfinite(effort)) return false;
  out = effort;
  return true;
}

/// True when [a, a + na) and [b, b + nb) share an element (compared as addresses).
template <typename Scalar>
inline bool spans_overlap(const Scalar* a, Eigen::Index na, const Scalar* b,
                          Eigen::Index nb) noexcept {
  const auto a0 = reinterpret_cast<std::uintptr_t>(a);
  const auto b0 = reinterpret_cast<std::uintptr_t>(b);
  const auto a1 = a0 + static_cast<std::uintptr_t>(na) * sizeof(Scalar);
  const auto b1 = b0 + static_cast<std::uintptr_t>(nb) * sizeof(Scalar);
  return na > 0 && nb > 0 && a0 < b1 && b0 < a1;
}

/// Joints per pass of pd_jiminy_contiguous (its scratch arrays live on the stack).
constexpr Eigen::Index kPdJiminyChunk = 64;

/// One chunk (m <= kPdJiminyChunk joints) of the jiminy-mode PD update over plain arrays: for
/// each joint the branch-free fast ZOH step (zoh_joint_jiminy_try_fast) and the PD effort, written
/// unconditionally to state and out. flag[i] = 1 where the joint must be redone by the scalar pass
/// (the fast step was not certain, or the effort is not finite: out must be held), 0 elsewhere;
/// saved[i] holds the previous p, v and out of the flagged joints (0 elsewhere).
/// Everything is straight-line code and the pointers are restrict (no two overlap where one is
/// written), so GCC vectorises the loop. What stops it (GCC 12, checked with -fopt-info-vec):
/// conditional stores (out[i] = c ? x : out[i] is one), any select that lets it thread the loop
/// into branches holding FP operations (they may trap), bool -> integer conversions of FP compare
/// masks, and an OR of the flags in the loop (it becomes a conditional reduction); hence Scalar
/// flags, ORed afterwards. The saves are selects, not copies, so that GCC does not split them out
/// as memcpy calls (rep movs, slow to start for a chunk this short).
template <typename Scalar>
struct PdJiminySaved {
  Scalar p[kPdJiminyChunk];
  Scalar w[kPdJiminyChunk];
  Scalar a[kPdJiminyChunk];
  Scalar out[kPdJiminyChunk];
  Scalar flag[kPdJiminyChunk];
};

template <typename Scalar>
inline void pd_jiminy_chunk(Eigen::Index m, Scalar dt, const Scalar* __restrict p_min,
                            const Scalar* __restrict v_min, const Scalar* __restrict a_min,
                            const Scalar* __restrict p_max, const Scalar* __restrict v_max,
                            const Scalar* __restrict a_max, const Scalar* __restrict inverse,
                            const Scalar* __restrict kp, const Scalar* __restrict kd,
                            const Scalar* __restrict limit, const Scalar* __restrict q,
                            const Scalar* __restrict v, const Scalar* __restrict target,
                            Scalar* __restrict p, Scalar* __restrict w, Scalar* __restrict a,
                            Scalar* __restrict out,
                            PdJiminySaved<Scalar>* __restrict saved) noexcept {
  constexpr Scalar kMax = std::numeric_limits<Scalar>::max();
  for (Eigen::Index i = 0; i < m; ++i) {
    const Scalar p0 = p[i];
    const Scalar w0 = w[i];
    const Scalar out0 = out[i];
    const Scalar a0 = a[i];
    Scalar p1, w1, a1;
    const bool certain = zoh_joint_jiminy_try_fast(
        p0, w0, target[i],
        JointStateBounds<Scalar>{p_min[i], v_min[i], a_min[i], p_max[i], v_max[i], a_max[i]}, dt,
        inverse[i], p1, w1, a1);
    const Scalar effort = clip(kp[i] * ((p1 - q[i]) + kd[i] * (w1 - v[i])), -limit[i], limit[i]);
    // Integer ANDs, no short-circuit: the loop stays branch-free.
    const bool done =
        (static_cast<int>(certain) & static_cast<int>(std::fabs(effort) <= kMax) &
         static_cast<int>(std::fabs(p1) <= kMax) & static_cast<int>(std::fabs(w1) <= kMax) &
         static_cast<int>(std::fabs(a1) <= kMax)) != 0;
    p[i] = p1;
    w[i] = w1;
    a[i] = a1;
    out[i] = effort;
    saved->p[i] = done ? Scalar(0) : p0;
    saved->w[i] = done ? Scalar(0) : w0;
    saved->a[i] = done ? Scalar(0) : a0;
    saved->out[i] = done ? Scalar(0) : out0;
    saved->flag[i] = done ? Scalar(0) : Scalar(1);
  }
}

/// True when some flag[0..m) is nonzero (an OR of their bits: vectorised, no branch per entry).
template <typename Scalar>
inline bool any_flag_set(const Scalar* flag, Eigen::Index m) noexcept {
  using Bits = std::conditional_t<sizeof(Scalar) == 8, std::uint64_t, std::uint32_t>;
  static_assert(sizeof(Bits) == sizeof(Scalar), "any_flag_set: float or double");
  Bits any = 0;
  for (Eigen::Index i = 0; i < m; ++i) {
    Bits bits;
    std::memcpy(&bits, flag + i, sizeof(Bits));
    any |= bits;
  }
  return any != 0;
}

/// The jiminy-mode PD update over plain arrays (see PdController::update), in chunks of
/// kPdJiminyChunk joints: pd_jiminy_chunk, then for the joints it flagged the previous p, v and out
/// back, zoh_joint_jiminy and pd_joint_effort. Returns true when some effort overflowed (its out
/// entry is held). FixedN (a compile-time joint count, or Dynamic) lets a fixed-size block's loop
/// be compiled for its exact trip count.
template <int FixedN, typename Scalar>
inline bool pd_jiminy_contiguous(Eigen::Index n_runtime, Scalar dt, const Scalar* p_min,
                                 const Scalar* v_min, const Scalar* a_min, const Scalar* p_max,
                                 const Scalar* v_max, const Scalar* a_max, const Scalar* inverse,
                                 const Scalar* kp, const Scalar* kd, const Scalar* limit,
                                 const Scalar* q, const Scalar* v, const Scalar* target, Scalar* p,
                                 Scalar* w, Scalar* a, Scalar* out) noexcept {
  const Eigen::Index n = (FixedN == Dynamic) ? n_runtime : Eigen::Index(FixedN);
  PdJiminySaved<Scalar> saved;
  bool overflow = false;
  for (Eigen::Index base = 0; base < n; base += kPdJiminyChunk) {
    const Eigen::Index m = (n - base < kPdJiminyChunk) ? n - base : kPdJiminyChunk;
    pd_jiminy_chunk(m, dt, p_min + base, v_min + base, a_min + base, p_max + base, v_max + base,
                    a_max + base, inverse + base, kp + base, kd + base, limit + base, q + base,
                    v + base, target + base, p + base, w + base, a + base, out + base, &saved);
    if (!any_flag_set(saved.flag, m)) continue;
    for (Eigen::Index i = 0; i < m; ++i) {
      if (saved.flag[i] == Scalar(0)) continue;
      const Eigen::Index j = base + i;
      p[j] = saved.p[i];
      w[j] = saved.w[i];
      a[j] = target[j];
      out[j] = saved.out[i];
      const JointStateBounds<Scalar> b{p_min[j], v_min[j], a_min[j], p_max[j], v_max[j], a_max[j]};
      if (!zoh_joint_or_hold(p[j], w[j], a[j], [&](Scalar& pj, Scalar& wj, Scalar& aj) {
            zoh_joint_jiminy(pj, wj, aj, b, dt);
          })) {
        a[j] = saved.a[i];  // the whole state held, as before the call
        overflow = true;
      }
      if (!pd_joint_effort(p[j], w[j], q[j], v[j], kp[j], kd[j], limit[j], out[j])) overflow = true;
    }
  }
  return overflow;
}

/// Validates PD gains and effort limits: finite kp >= 0, finite kd >= 0, limit >= 0 (may be +inf).
template <typename DKp, typename DKd, typename DLim>
inline Status validate_pd_parameters(const Eigen::MatrixBase<DKp>& kp,
                                     const Eigen::MatrixBase<DKd>& kd,
                                     const Eigen::MatrixBase<DLim>& effort_limit) noexcept {
  if (kp.size() != kd.size() || kp.size() != effort_limit.size()) return Status::SizeMismatch;
  using Scalar = typename DKp::Scalar;
  for (Eigen::Index j = 0; j < kp.size(); ++j) {
    if (!std::isfinite(kp.coeff(j)) || kp.coeff(j) < Scalar(0)) return Status::InvalidParameter;
    if (!std::isfinite(kd.coeff(j)) || kd.coeff(j) < Scalar(0)) return Status::InvalidParameter;
    if (std::isnan(effort_limit.coeff(j)) || effort_limit.coeff(j) < Scalar(0))
      return Status::InvalidParameter;
  }
  return Status::Ok;
}

}  // namespace detail

}  // namespace claw
