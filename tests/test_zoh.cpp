// tests/test_zoh.cpp: integrators/zoh.hpp against gym_jiminy's reference vectors (bit for bit), the
// closed-form constant-acceleration trajectory, viable-mode invariants on random input, and bad
// input.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "claw/integrators/zoh.hpp"
#include "support/alloc_counter.hpp"
#include "support/infinity.hpp"
#include "support/reference.hpp"

using claw::Status;
using claw::ZohMode;
using Eigen::MatrixXd;

namespace {

// Bounds used by the hand-written tests: [p; v; a] in [-0.8, 0.8] x [-2, 2] x [-20, 20].
MatrixXd default_lower() {
  MatrixXd m(3, 1);
  m << -0.8, -2.0, -20.0;
  return m;
}
MatrixXd default_upper() { return -default_lower(); }

}  // namespace

TEST_CASE("integrate_zoh reproduces gym_jiminy bit for bit", "[conformance][zoh]") {
  const auto cases = claw_test::load_reference("jiminy", "integrate_zoh.json");
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    INFO(claw_test::case_label("integrate_zoh.json", c));
    const MatrixXd lower = claw_test::to_matrix(c["state_min"]);
    const MatrixXd upper = claw_test::to_matrix(c["state_max"]);
    const MatrixXd expected = claw_test::to_matrix(c["expected_state"]);
    const double dt = claw_test::to_double(c["dt"]);

    MatrixXd state = claw_test::to_matrix(c["state"]);
    REQUIRE(claw::integrate_zoh(state, lower, upper, dt) == Status::Ok);
    const std::string differences = claw_test::exact_differences("state", state, expected);
    INFO(differences);
    REQUIRE(differences.empty());

    // The same case through a bounded (inline storage) row-major state gives the same bits.
    if (state.cols() <= 8) {
      claw::StateMatrix<double, claw::Dynamic, 8> bounded = claw_test::to_matrix(c["state"]);
      REQUIRE(claw::integrate_zoh(bounded, lower, upper, dt) == Status::Ok);
      const std::string bounded_differences =
          claw_test::exact_differences("bounded state", bounded, expected);
      INFO(bounded_differences);
      REQUIRE(bounded_differences.empty());
    }
  }
}

TEST_CASE("integrate_zoh answers gym_jiminy's exceptions with a status, touching nothing",
          "[conformance][zoh]") {
  const auto cases = claw_test::load_reference("jiminy", "exceptions.json");
  for (const auto& c : cases) {
    if (c["function"] != "integrate_zoh") continue;
    INFO(claw_test::case_label("exceptions.json", c));
    const MatrixXd before = claw_test::to_matrix(c["state"]);
    MatrixXd state = before;
    const Status status =
        claw::integrate_zoh(state, claw_test::to_matrix(c["state_min"]),
                            claw_test::to_matrix(c["state_max"]), claw_test::to_double(c["dt"]));
    INFO("status " << claw::to_string(status));
    REQUIRE(status != Status::Ok);
    const double dt = claw_test::to_double(c["dt"]);
    if (dt < 0) REQUIRE(status == Status::NegativeTimeStep);
    REQUIRE(claw_test::exact_differences("state", state, before).empty());
  }
}

TEMPLATE_TEST_CASE("constant acceleration inside the bounds follows the closed form",
                   "[zoh][closed-form]", float, double) {
  using S = TestType;
  // Binary fractions keep every product exact in float and double, so the tolerance (1e-12
  // relative, the issue's) checks the algebra of the scheme, not rounding luck.
  const S tol = S(1e-12);
  const int steps = 1000;
  const S dt = S(1.0 / 1024), p0 = S(0.125), v0 = S(-0.25), a = S(1.5);
  for (ZohMode mode : {ZohMode::JiminyCompatible, ZohMode::Viable}) {
    claw::StateMatrix<S, 7> state;
    claw::StateMatrix<S, 7> lower, upper;
    lower.row(0).setConstant(S(-100));
    lower.row(1).setConstant(S(-50));
    lower.row(2).setConstant(S(-20));
    upper = -lower;
    state.row(0).setConstant(p0);
    state.row(1).setConstant(v0);
    state.row(2).setConstant(a);
    for (int n = 1; n <= steps; ++n) {
      REQUIRE(claw::integrate_zoh(state, lower, upper, dt, mode) == Status::Ok);
      const S nn = S(n);
      const S p_expected = p0 + nn * dt * v0 + a * dt * dt * nn * (nn + 1) / 2;
      const S v_expected = v0 + nn * dt * a;
      INFO("mode " << int(mode) << " step " << n);
      REQUIRE(std::fabs(state(0, 3) - p_expected) <= tol * std::fabs(p_expected));
      REQUIRE(std::fabs(state(1, 3) - v_expected) <= tol * std::fabs(v_expected));
      REQUIRE(std::fabs(state(2, 3) - a) <= tol * a);
    }
  }
}

namespace {

// Independent viability check: brake with semi-implicit Euler at the admissible deceleration
// until stopped and report whether every visited position stays within [p_min, p_max] + slack.
bool brakes_inside(double p, double v, double p_min, double p_max, double a_min, double a_max,
                   double dt, double slack) {
  for (int k = 0; k < 100000 && v != 0.0; ++k) {
    const double a = v > 0 ? std::max(-v / dt, a_min) : std::min(-v / dt, a_max);
    v = (std::fabs(a * dt) >= std::fabs(v)) ? 0.0 : v + a * dt;
    p += dt * v;
    if (p > p_max + slack || p < p_min - slack) return false;
  }
  return v == 0.0;
}

struct RandomJoint {
  double p_min, p_max, v_min, v_max, a_min, a_max;
};

RandomJoint random_bounds(std::mt19937_64& rng, double dt) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  RandomJoint b{};
  b.p_min = -0.1 - 2.0 * u(rng);
  b.p_max = b.p_min + 0.01 + 3.0 * u(rng);
  b.v_max = 0.05 + 3.0 * u(rng);
  b.v_min = -(0.05 + 3.0 * u(rng));
  b.a_max = (0.5 + 40.0 * u(rng));
  b.a_min = -(0.5 + 40.0 * u(rng));
  // Keep the braking horizon to a few hundred steps so the independent check stays cheap.
  b.a_max = std::max(b.a_max, b.v_max / (300 * dt));
  b.a_min = std::min(b.a_min, b.v_min / (300 * dt));
  return b;
}

}  // namespace

TEST_CASE("viable mode keeps random viable states viable over 1e5 steps", "[zoh][property]") {
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int joints = 4;
  const int steps = 25000;  // x 4 joints = 1e5 joint steps
  const double dt = 0.002;
  MatrixXd lower(3, joints), upper(3, joints), state(3, joints);
  for (int j = 0; j < joints; ++j) {
    const RandomJoint b = random_bounds(rng, dt);
    lower.col(j) << b.p_min, b.v_min, b.a_min;
    upper.col(j) << b.p_max, b.v_max, b.a_max;
    // Rejection-sample a viable initial state.
    do {
      state(0, j) = b.p_min + (b.p_max - b.p_min) * u(rng);
      state(1, j) = b.v_min + (b.v_max - b.v_min) * u(rng);
    } while (!brakes_inside(state(0, j), state(1, j), b.p_min, b.p_max, b.a_min, b.a_max, dt, 0.0));
  }
  REQUIRE(claw::validate_state_bounds(lower, upper, ZohMode::Viable) == Status::Ok);
  std::size_t braking_checks_failed = 0;
  for (int k = 0; k < steps; ++k) {
    const MatrixXd before = state;
    for (int j = 0; j < joints; ++j) {
      // Random actions, often far beyond the acceleration bounds (bang-bang, huge, tiny).
      const double r = u(rng);
      const double scale = r < 0.3 ? 1.0 : (r < 0.6 ? 5.0 : (r < 0.9 ? 1e6 : 1e-9));
      state(2, j) = (2 * u(rng) - 1) * scale * upper(2, j);
    }
    REQUIRE(claw::integrate_zoh(state, lower, upper, dt, ZohMode::Viable) == Status::Ok);
    for (int j = 0; j < joints; ++j) {
      INFO("step " << k << " joint " << j);
      // Bounds hold exactly.
      REQUIRE(state(0, j) >= lower(0, j));
      REQUIRE(state(0, j) <= upper(0, j));
      REQUIRE(state(1, j) >= lower(1, j));
      REQUIRE(state(1, j) <= upper(1, j));
      REQUIRE(state(2, j) >= lower(2, j));
      REQUIRE(state(2, j) <= upper(2, j));
      // The state is consistent with semi-implicit Euler up to rounding (no hidden teleport).
      const double v_scale = std::fabs(before(1, j)) + std::fabs(state(1, j)) + 1e-3;
      REQUIRE(std::fabs(state(1, j) - (before(1, j) + dt * state(2, j))) <= 1e-9 * v_scale);
      const double p_scale = std::fabs(before(0, j)) + 1.0;
      REQUIRE(std::fabs(state(0, j) - (before(0, j) + dt * state(1, j))) <= 1e-12 * p_scale);
      // And it can still stop inside its position bounds (up to rounding slack).
      if (!brakes_inside(state(0, j), state(1, j), lower(0, j), upper(0, j), lower(2, j),
                         upper(2, j), dt, 1e-9))
        ++braking_checks_failed;
    }
  }
  REQUIRE(braking_checks_failed == 0);
}

TEST_CASE("viable mode brings a state outside the bounds back at the largest deceleration",
          "[zoh][property]") {
  const double dt = 0.01;
  MatrixXd lower = default_lower(), upper = default_upper();
  SECTION("too fast toward the upper bound: brakes at amin every step until viable") {
    MatrixXd state(3, 1);
    state << 0.5, 2.0, 0.0;  // stopping distance at 20 m/s^2 ~ 0.1: viable from p = 0.5
    state(0, 0) = 0.75;      // 0.05 from the bound at 2 m/s: not viable
    int braking_steps = 0;
    for (int k = 0; k < 50; ++k) {
      state(2, 0) = 20.0;  // the action pushes toward the bound
      REQUIRE(claw::integrate_zoh(state, lower, upper, dt, ZohMode::Viable) == Status::Ok);
      if (state(2, 0) <= lower(2, 0) * (1 - 1e-9)) ++braking_steps;
      REQUIRE(state(2, 0) >= lower(2, 0));
      REQUIRE(state(1, 0) <= upper(1, 0));
    }
    // Braking 2 m/s at 20 m/s^2 takes 10 steps of 0.01 s: all of them at amin.
    REQUIRE(braking_steps >= 10);
    REQUIRE(state(0, 0) <= 0.75 + 2.0 * 2.0 / (2 * 20.0) + 1e-12);
  }
  SECTION("above the upper position bound at rest: accelerates back at amax and re-enters") {
    MatrixXd state(3, 1);
    state << 1.0, 0.0, 0.0;
    bool inside = false;
    for (int k = 0; k < 200; ++k) {
      const MatrixXd before = state;
      state(2, 0) = 0.0;
      REQUIRE(claw::integrate_zoh(state, lower, upper, dt, ZohMode::Viable) == Status::Ok);
      REQUIRE(state(2, 0) >= lower(2, 0));
      REQUIRE(state(2, 0) <= upper(2, 0));
      if (k == 0) REQUIRE(state(2, 0) == lower(2, 0));  // full acceleration toward the bound
      if (inside) REQUIRE(state(0, 0) <= upper(0, 0));  // once back, it stays back
      if (state(0, 0) <= upper(0, 0)) inside = true;
      REQUIRE(state(0, 0) <= before(0, 0) + 1e-15);  // never moves further away
    }
    REQUIRE(inside);
    REQUIRE(std::fabs(state(1, 0)) < 1e-12);  // and comes to rest
  }
}

TEST_CASE("integrate_zoh refuses bad input and touches nothing", "[zoh][bad-input]") {
  const MatrixXd lower = default_lower(), upper = default_upper();
  MatrixXd state(3, 1);
  state << 0.1, 0.5, 3.0;
  const MatrixXd before = state;
  for (ZohMode mode : {ZohMode::JiminyCompatible, ZohMode::Viable}) {
    REQUIRE(claw::integrate_zoh(state, lower, upper, -0.001, mode) == Status::NegativeTimeStep);
    REQUIRE(claw::integrate_zoh(state, lower, upper, std::nan(""), mode) == Status::NonFiniteInput);
    REQUIRE(claw::integrate_zoh(state, lower, upper, kInf, mode) == Status::NonFiniteInput);
    REQUIRE(claw::integrate_zoh(state, lower, upper, 5e-10, mode) == Status::Ok);  // |dt| < 1e-9
    REQUIRE(state == before);
    MatrixXd nan_state = state;
    nan_state(1, 0) = std::nan("");
    MatrixXd nan_copy = nan_state;
    REQUIRE(claw::integrate_zoh(nan_state, lower, upper, 0.001, mode) == Status::NonFiniteInput);
    REQUIRE(nan_state(0, 0) == nan_copy(0, 0));
    REQUIRE(nan_state(2, 0) == nan_copy(2, 0));
    MatrixXd nan_lower = lower;
    nan_lower(0, 0) = std::nan("");
    REQUIRE(claw::integrate_zoh(state, nan_lower, upper, 0.001, mode) == Status::InvalidBounds);
    REQUIRE(state == before);
  }
  // Zero acceleration bound: gym_jiminy raises in its horizon division; claw refuses.
  MatrixXd zero_acc_upper = upper;
  zero_acc_upper(2, 0) = 0.0;
  MatrixXd zero_acc_lower = lower;
  zero_acc_lower(2, 0) = 0.0;
  REQUIRE(claw::integrate_zoh(state, zero_acc_lower, zero_acc_upper, 0.001) ==
          Status::InvalidBounds);
  REQUIRE(state == before);
}

TEST_CASE("validate_state_bounds refuses NaN, lower > upper and unusable accelerations",
          "[zoh][bad-input]") {
  const MatrixXd lower = default_lower(), upper = default_upper();
  REQUIRE(claw::validate_state_bounds(lower, upper) == Status::Ok);
  REQUIRE(claw::validate_state_bounds(lower, upper, ZohMode::Viable) == Status::Ok);
  for (int row = 0; row < 3; ++row) {
    MatrixXd bad_lower = lower;
    bad_lower(row, 0) = upper(row, 0) + 1.0;
    REQUIRE(claw::validate_state_bounds(bad_lower, upper) == Status::InvalidBounds);
    MatrixXd nan_upper = upper;
    nan_upper(row, 0) = std::nan("");
    REQUIRE(claw::validate_state_bounds(lower, nan_upper) == Status::InvalidBounds);
  }
  MatrixXd zero_amax = upper;
  zero_amax(2, 0) = 0.0;
  REQUIRE(claw::validate_state_bounds(lower, zero_amax) == Status::InvalidBounds);
  MatrixXd no_braking = lower;
  no_braking(2, 0) = 0.0;
  REQUIRE(claw::validate_state_bounds(no_braking, upper) == Status::Ok);
  REQUIRE(claw::validate_state_bounds(no_braking, upper, ZohMode::Viable) == Status::InvalidBounds);
  MatrixXd infinite_lower = lower, infinite_upper = upper;
  infinite_lower.setConstant(-kInf);
  infinite_upper.setConstant(kInf);
  REQUIRE(claw::validate_state_bounds(infinite_lower, infinite_upper, ZohMode::Viable) ==
          Status::Ok);
  REQUIRE(claw::validate_state_bounds(MatrixXd(3, 2), upper) == Status::SizeMismatch);
}

TEST_CASE("integrate_zoh allocates nothing", "[zoh][allocation]") {
  const Eigen::Index n = 49;
  MatrixXd lower(3, n), upper(3, n), state(3, n);
  lower.row(0).setConstant(-1);
  lower.row(1).setConstant(-2);
  lower.row(2).setConstant(-20);
  upper = -lower;
  state.setRandom();
  claw::StateMatrix<float, 7> state_f = claw::StateMatrix<float, 7>::Random();
  const claw::StateMatrix<float, 7> lower_f = lower.leftCols(7).cast<float>();
  const claw::StateMatrix<float, 7> upper_f = upper.leftCols(7).cast<float>();
  for (ZohMode mode : {ZohMode::JiminyCompatible, ZohMode::Viable}) {
    Status s1 = Status::InvalidProblem, s2 = Status::InvalidProblem;
    const std::size_t allocations = claw_test::allocations_during([&] {
      s1 = claw::integrate_zoh(state, lower, upper, 0.001, mode);
      s2 = claw::integrate_zoh(state_f, lower_f, upper_f, 0.001f, mode);
    });
    REQUIRE(s1 == Status::Ok);
    REQUIRE(s2 == Status::Ok);
    REQUIRE(allocations == 0);
  }
}

TEST_CASE("max_stoppable_speed: the rounded brake stops within the margin (float, wide ranges)",
          "[zoh][property]") {
  // Braking as the viable step does it in float: s = fl(decel dt) per step, v <- fl(v - s), each
  // step moving dt v (summed in double). From the returned speed the travel must stay within the
  // margin, for margins, decelerations and dt over 60 decades, subnormal and huge included.
  std::mt19937 rng(20261130);
  std::uniform_real_distribution<double> exponent(-44.0, 37.0), dt_exponent(-8.0, 4.0);
  int simulated = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const float margin = float(std::pow(10.0, exponent(rng)));
    const float decel = float(std::pow(10.0, exponent(rng)));
    const float dt = float(std::pow(10.0, dt_exponent(rng)));
    if (!(margin > 0.0f) || !(decel > 0.0f) || !std::isfinite(margin) || !std::isfinite(decel))
      continue;
    const float w = claw::detail::max_stoppable_speed(margin, decel, dt);
    INFO("margin " << margin << " decel " << decel << " dt " << dt << " w " << w);
    REQUIRE(w >= 0.0f);
    REQUIRE(std::isfinite(w));
    const float s = decel * dt;
    double travel = double(dt) * double(w);
    float v = w;
    long steps = 0;
    while (v > 0.0f && steps < 2000000) {
      v = v - s;
      if (v > 0.0f) travel += double(dt) * double(v);
      ++steps;
    }
    if (steps >= 2000000) continue;  // too long to simulate here
    ++simulated;
    // A subnormal w or margin is quantised in denorm_min steps: the quotient margin / dt may round
    // up by half a denorm_min (of speed, or of the travel dt w), carried into every braking step
    // (the step's position clamp absorbs (2 dt + 8) denorm_min, and the next step plans from the
    // real margin).
    const float tiny = std::numeric_limits<float>::min();
    const double quantum = (w < tiny || margin < tiny)
                               ? double(steps + 1) * (double(dt) + 1.0) *
                                     double(std::numeric_limits<float>::denorm_min())
                               : 0.0;
    REQUIRE(travel <= double(margin) + quantum);
  }
  CHECK(simulated > 1000);
}

TEST_CASE("max_stoppable_speed is the exact discrete braking limit", "[zoh][closed-form]") {
  const double dt = 0.01, decel = 10.0;
  for (double margin : {1e-6, 0.001, 0.0015, 0.01, 0.1, 1.0, 37.0}) {
    const double w = claw::detail::max_stoppable_speed(margin, decel, dt);
    INFO("margin " << margin << " w " << w);
    // Braking from w travels at most the margin...
    double p = 0.0, v = w;
    p += dt * v;  // the step that reaches w
    while (v > 0) {
      v = std::max(v - decel * dt, 0.0);
      p += dt * v;
    }
    REQUIRE(p <= margin * (1 + 1e-12));
    // ...and any speed 1e-9 relative faster travels beyond it (so w is the largest).
    double p2 = 0.0, v2 = w * (1 + 1e-9) + 1e-15;
    p2 += dt * v2;
    while (v2 > 0) {
      v2 = std::max(v2 - decel * dt, 0.0);
      p2 += dt * v2;
    }
    REQUIRE(p2 > margin);
  }
  REQUIRE(claw::detail::max_stoppable_speed(-0.5, decel, dt) == -50.0);
  REQUIRE(claw::detail::max_stoppable_speed(kInf, decel, dt) == kInf);
  REQUIRE(claw::detail::max_stoppable_speed(0.3, kInf, dt) == 30.0);
}
