// tests/fuzz/fuzz_pd_controller.cpp: libFuzzer target for the PD block PdController and the free
// function pd_controller (claw/blocks/pd_controller.hpp): settings refused keep the old ones,
// refused calls touch nothing, finite in -> finite out, |tau| <= effort limit, and the block equals
// the function bit for bit.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "claw/blocks/pd_controller.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

using claw::Status;
using claw::ZohMode;
using claw_fuzz::FuzzInput;

constexpr int kMaxJoints = 8;

template <typename Scalar>
void run(FuzzInput& in) {
  using Block = claw::PdController<Scalar, claw::Dynamic, kMaxJoints>;
  using Vec = typename Block::VectorType;
  using State = typename Block::StateType;
  const int n = in.integer(1, kMaxJoints);
  Block pd(n);
  typename Block::Settings settings = pd.settings();

  auto random_settings = [&]() {
    typename Block::Settings s = pd.settings();
    const bool raw = in.boolean();
    for (Eigen::Index j = 0; j < n; ++j) {
      for (int i = 0; i < 3; ++i) {
        if (raw) {
          s.bounds.lower(i, j) = in.value<Scalar>();
          s.bounds.upper(i, j) = in.value<Scalar>();
        } else {
          const bool unbounded = in.byte() % 8 == 0;
          s.bounds.lower(i, j) =
              unbounded ? -claw::infinity<Scalar>() : -std::fabs(in.finite<Scalar>());
          s.bounds.upper(i, j) =
              unbounded ? claw::infinity<Scalar>() : std::fabs(in.finite<Scalar>());
        }
      }
      s.kp(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      s.kd(j) = raw ? in.value<Scalar>() : std::fabs(in.finite<Scalar>());
      s.effort_limit(j) = raw ? in.value<Scalar>() : std::fabs(in.value<Scalar>());
    }
    s.control_dt = in.boolean() ? in.value<Scalar>() : Scalar(1e-3);
    s.mode = in.boolean() ? ZohMode::Viable : ZohMode::JiminyCompatible;
    return s;
  };

  // The documented validity of a settings object.
  auto valid = [&](const typename Block::Settings& s) {
    if (claw::validate_state_bounds(s.bounds.lower, s.bounds.upper, s.mode) != Status::Ok)
      return false;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!std::isfinite(s.kp(j)) || s.kp(j) < 0 || !std::isfinite(s.kd(j)) || s.kd(j) < 0)
        return false;
      if (std::isnan(s.effort_limit(j)) || s.effort_limit(j) < 0) return false;
    }
    return std::isfinite(s.control_dt) && s.control_dt >= Scalar(CLAW_MIN_TIME_STEP);
  };

  auto configure = [&]() {
    const typename Block::Settings s = random_settings();
    const State state_before = pd.command_state();
    const typename Block::Settings old = pd.settings();
    const Status status = pd.configure(s);
    CLAW_FUZZ_CHECK((status == Status::Ok) == valid(s), "configure: status differs from validity");
    if (status != Status::Ok) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pd.settings().kp, old.kp) &&
                          claw_fuzz::same_bits(pd.settings().bounds.lower, old.bounds.lower) &&
                          claw_fuzz::same_bits(pd.command_state(), state_before),
                      "configure: refused settings changed the block");
    } else {
      settings = s;
    }
  };
  configure();

  Vec q(n), v(n), target(n), out(n), kp(n), kd(n), limit(n);
  out.setZero();
  // The effort limit holds for every written output.
  auto check_out = [&](const Vec& o, const Vec& before, Status status) {
    for (Eigen::Index j = 0; j < n; ++j) {
      if (status == Status::NumericalOverflow && claw_fuzz::same_scalar_bits(o(j), before(j)))
        continue;
      CLAW_FUZZ_CHECK(std::isfinite(o(j)), "finite input gave a non-finite effort");
      const Scalar lim = pd.settings().effort_limit(j);
      CLAW_FUZZ_CHECK(std::fabs(o(j)) <= lim, "effort above its limit");
    }
  };

  const int steps = in.integer(1, 32);
  for (int k = 0; k < steps; ++k) {
    const int op = in.integer(0, 9);
    const bool raw_inputs = in.byte() % 4 == 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      q(j) = raw_inputs ? in.value<Scalar>() : in.finite<Scalar>();
      v(j) = raw_inputs ? in.value<Scalar>() : in.finite<Scalar>();
      target(j) = raw_inputs ? in.value<Scalar>() : in.finite<Scalar>();
    }
    const bool inputs_finite =
        claw_fuzz::finite(q) && claw_fuzz::finite(v) && claw_fuzz::finite(target);
    const State state_before = pd.command_state();
    const Vec out_before = out;
    Status status = Status::Ok;
    switch (op) {
      case 0:
        configure();
        continue;
      case 1: {
        status = pd.reset(q, v, out);
        break;
      }
      case 2: {
        for (Eigen::Index j = 0; j < n; ++j) {
          kp(j) = in.value<Scalar>();
          kd(j) = in.value<Scalar>();
        }
        const Vec kp_old = pd.settings().kp;
        status = pd.set_gains(kp, kd);
        if (status != Status::Ok)
          CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pd.settings().kp, kp_old),
                          "set_gains: refused gains installed");
        else
          CLAW_FUZZ_CHECK(claw_fuzz::finite(kp) && kp.minCoeff() >= 0 && claw_fuzz::finite(kd) &&
                              kd.minCoeff() >= 0,
                          "set_gains accepted invalid gains");
        continue;
      }
      case 3: {
        for (Eigen::Index j = 0; j < n; ++j) limit(j) = in.value<Scalar>();
        status = pd.set_effort_limit(limit);
        if (status == Status::Ok)
          for (Eigen::Index j = 0; j < n; ++j)
            CLAW_FUZZ_CHECK(!std::isnan(limit(j)) && limit(j) >= 0,
                            "set_effort_limit accepted a bad limit");
        continue;
      }
      case 4: {
        State s(3, n);
        claw_fuzz::fill_values(in, s);
        status = pd.set_command_state(s);
        CLAW_FUZZ_CHECK((status == Status::Ok) == claw_fuzz::finite(s), "set_command_state status");
        if (status != Status::Ok)
          CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pd.command_state(), state_before),
                          "set_command_state touched");
        continue;
      }
      case 5: {
        status = pd.compute_effort(q, v, out);
        break;
      }
      case 6: {
        // Non-unit-stride output: the joint-by-joint path; must equal the free function.
        Eigen::Matrix<Scalar, 2, claw::Dynamic, Eigen::ColMajor, 2, kMaxJoints> strided(2, n);
        strided.row(0) = out.transpose();
        strided.row(1).setZero();
        status = pd.update(q, v, target, strided.row(0).transpose());
        out = strided.row(0).transpose();
        break;
      }
      default: {
        // The block's update against the free function on a copy of the command state.
        State reference_state = pd.command_state();
        reference_state.row(2) = target.transpose();
        // A snapshot: out is written through Eigen's const MatrixBase& idiom.
        // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
        Vec reference_out = out;
        const typename Block::Settings& s = pd.settings();
        const Status reference_status =
            claw::pd_controller(q, v, reference_state, s.bounds.lower, s.bounds.upper, s.kp, s.kd,
                                s.effort_limit, s.control_dt, reference_out, s.mode);
        status = pd.update(q, v, target, out);
        // integrate_zoh refuses (InvalidBounds) a joint whose horizon count (|v| / amax) / dt is
        // not finite; the block, whose bounds were validated once, holds that joint instead.
        if (inputs_finite && reference_status == Status::InvalidBounds) {
          CLAW_FUZZ_CHECK(status == Status::Ok || status == Status::NumericalOverflow,
                          "block refused what integrate_zoh refuses as InvalidBounds");
        } else if (inputs_finite) {
          CLAW_FUZZ_CHECK(status == reference_status, "block and function statuses differ");
          CLAW_FUZZ_CHECK(claw_fuzz::same_bits(out, reference_out),
                          "block and function efforts differ");
          if (status == Status::Ok || status == Status::NumericalOverflow)
            CLAW_FUZZ_CHECK(
                claw_fuzz::same_bits(pd.command_state().topRows(2), reference_state.topRows(2)),
                "block and function command states differ");
        }
        break;
      }
    }
    // reset and compute_effort read q and v only.
    const bool used_finite =
        (op == 1 || op == 5) ? claw_fuzz::finite(q) && claw_fuzz::finite(v) : inputs_finite;
    if (!used_finite) {
      CLAW_FUZZ_CHECK(status == Status::NonFiniteInput, "non-finite input accepted");
    }
    if (status != Status::Ok && status != Status::NumericalOverflow) {
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(out, out_before), "a refused call wrote the output");
      CLAW_FUZZ_CHECK(claw_fuzz::same_bits(pd.command_state(), state_before),
                      "a refused call touched the state");
      continue;
    }
    CLAW_FUZZ_CHECK(claw_fuzz::finite(pd.command_state()),
                    "finite input gave a non-finite command state");
    check_out(out, out_before, status);
    if (pd.settings().mode == ZohMode::Viable && op != 1 && op != 5) {
      const auto& lo = pd.settings().bounds.lower;
      const auto& hi = pd.settings().bounds.upper;
      for (Eigen::Index j = 0; j < n; ++j) {
        const Scalar a = pd.command_state()(2, j);
        CLAW_FUZZ_CHECK(
            a >= lo(2, j) && a <= hi(2, j) || claw_fuzz::same_scalar_bits(a, state_before(2, j)),
            "viable mode: acceleration outside its bounds");
      }
    }
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
