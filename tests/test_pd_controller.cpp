// tests/test_pd_controller.cpp: blocks/pd_controller.hpp against gym_jiminy's reference vectors
// (bit for bit), the critically damped closed form, clipping, reset, bad input, batching and
// allocation.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "claw/blocks/pd_controller.hpp"
#include "support/alloc_counter.hpp"
#include "support/infinity.hpp"
#include "support/reference.hpp"

using claw::Status;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

template <typename S, int N>
typename claw::PdController<S, N>::Settings make_settings(Eigen::Index n, S kp, S kd, S limit,
                                                          S control_dt) {
  typename claw::PdController<S, N>::Settings settings;
  settings.bounds.lower.resize(3, n);
  settings.bounds.upper.resize(3, n);
  settings.bounds.lower.row(0).setConstant(S(-2));
  settings.bounds.lower.row(1).setConstant(S(-5));
  settings.bounds.lower.row(2).setConstant(S(-100));
  settings.bounds.upper = -settings.bounds.lower;
  settings.kp.setConstant(n, kp);
  settings.kd.setConstant(n, kd);
  settings.effort_limit.setConstant(n, limit);
  settings.control_dt = control_dt;
  return settings;
}
}  // namespace

TEST_CASE("pd_controller reproduces gym_jiminy bit for bit", "[conformance][pd_controller]") {
  const auto cases = claw_test::load_reference("jiminy", "pd_controller.json");
  REQUIRE(!cases.empty());
  int class_cases = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pd_controller.json", c));
    const MatrixXd encoder = claw_test::to_matrix(c["encoder_data"]);
    const MatrixXd lower = claw_test::to_matrix(c["command_state_lower"]);
    const MatrixXd upper = claw_test::to_matrix(c["command_state_upper"]);
    const VectorXd kp = claw_test::to_vector(c["kp"]);
    const VectorXd kd = claw_test::to_vector(c["kd"]);
    const VectorXd limit = claw_test::to_vector(c["motors_effort_limit"]);
    const double dt = claw_test::to_double(c["control_dt"]);
    const MatrixXd expected_state = claw_test::to_matrix(c["expected_command_state"]);
    const MatrixXd expected_out = claw_test::to_vector(c["expected_out"]);

    // The free function (gym_jiminy's pd_controller).
    MatrixXd state = claw_test::to_matrix(c["command_state"]);
    VectorXd out = VectorXd::Constant(state.cols(), 12345.0);
    REQUIRE(claw::pd_controller(encoder.row(0).transpose(), encoder.row(1).transpose(), state,
                                lower, upper, kp, kd, limit, dt, out) == Status::Ok);
    std::string differences = claw_test::exact_differences("command_state", state, expected_state) +
                              claw_test::exact_differences("out", out, expected_out);
    INFO(differences);
    REQUIRE(differences.empty());

    // The PdController block, where the case's settings are ones the block accepts (it refuses
    // bounds with lower > upper, and periods below 1e-9 s, which are the free function's concern).
    if (claw::validate_state_bounds(lower, upper) != Status::Ok || dt < 1e-9) continue;
    ++class_cases;
    claw::PdControllerXd block(state.cols());
    claw::PdControllerXd::Settings settings;
    settings.bounds = {lower, upper};
    settings.kp = kp;
    settings.kd = kd;
    settings.effort_limit = limit;
    settings.control_dt = dt;
    REQUIRE(block.configure(settings) == Status::Ok);
    const MatrixXd initial = claw_test::to_matrix(c["command_state"]);
    REQUIRE(block.set_command_state(initial) == Status::Ok);
    VectorXd block_out(state.cols());
    REQUIRE(block.update(encoder.row(0).transpose(), encoder.row(1).transpose(),
                         initial.row(2).transpose(), block_out) == Status::Ok);
    differences =
        claw_test::exact_differences("block command_state", block.command_state(), expected_state) +
        claw_test::exact_differences("block out", block_out, expected_out);
    INFO(differences);
    REQUIRE(differences.empty());
  }
  REQUIRE(class_cases > 0);
}

TEST_CASE("pd_controller answers gym_jiminy's exceptions with a status",
          "[conformance][pd_controller]") {
  const auto cases = claw_test::load_reference("jiminy", "exceptions.json");
  for (const auto& c : cases) {
    if (c["function"] != "pd_controller") continue;
    INFO(claw_test::case_label("exceptions.json", c));
    const MatrixXd encoder = claw_test::to_matrix(c["encoder_data"]);
    const MatrixXd before = claw_test::to_matrix(c["command_state"]);
    MatrixXd state = before;
    VectorXd out = VectorXd::Constant(state.cols(), 7.0);
    const Status status = claw::pd_controller(
        encoder.row(0).transpose(), encoder.row(1).transpose(), state,
        claw_test::to_matrix(c["command_state_lower"]),
        claw_test::to_matrix(c["command_state_upper"]), claw_test::to_vector(c["kp"]),
        claw_test::to_vector(c["kd"]), claw_test::to_vector(c["motors_effort_limit"]),
        claw_test::to_double(c["control_dt"]), out);
    REQUIRE(status != Status::Ok);
    REQUIRE(state == before);
    REQUIRE(out == VectorXd::Constant(state.cols(), 7.0));
  }
}

TEST_CASE("derive_pd_command_bounds reproduces gym_jiminy's PDController bounds",
          "[conformance][pd_controller]") {
  const auto cases = claw_test::load_reference("jiminy", "pd_controller_bounds.json");
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pd_controller_bounds.json", c));
    const auto& motors_json = c["motors"];
    const auto n = static_cast<Eigen::Index>(motors_json.size());
    claw::MotorLimits<double, claw::Dynamic> motors;
    motors.position_lower.resize(n);
    motors.position_upper.resize(n);
    motors.velocity_limit.resize(n);
    motors.effort_limit.resize(n);
    motors.mechanical_reduction.resize(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto& m = motors_json[static_cast<std::size_t>(j)];
      motors.position_lower(j) = claw_test::to_double(m["position_limit_lower"]);
      motors.position_upper(j) = claw_test::to_double(m["position_limit_upper"]);
      motors.velocity_limit(j) = claw_test::to_double(m["velocity_limit"]);
      motors.effort_limit(j) = claw_test::to_double(m["effort_limit"]);
      motors.mechanical_reduction(j) = claw_test::to_double(m["mechanical_reduction"]);
    }
    // Gains may be scalars (broadcast, as numpy does) or per-motor lists.
    auto per_motor = [n](const nlohmann::json& value) {
      return value.is_array() ? claw_test::to_vector(value)
                              : VectorXd::Constant(n, claw_test::to_double(value));
    };
    const VectorXd kp = per_motor(c["kp"]);
    const VectorXd kd = per_motor(c["kd"]);
    claw::PdBoundsOptions<double> options;
    options.joint_position_margin = claw_test::to_double(c["joint_position_margin"]);
    options.joint_velocity_limit = claw_test::to_double(c["joint_velocity_limit"]);
    options.infer_acceleration_limit = c["joint_acceleration_limit"].is_null();
    options.joint_acceleration_limit = claw_test::to_double(c["joint_acceleration_limit"], kInf);
    claw::StateBounds<double, claw::Dynamic> bounds;
    REQUIRE(claw::derive_pd_command_bounds(motors, kp, kd, claw_test::to_double(c["step_dt"]),
                                           options, bounds) == Status::Ok);
    const auto initial = claw::initial_command_state(bounds);
    std::string differences =
        claw_test::exact_differences("lower", bounds.lower,
                                     claw_test::to_matrix(c["expected_command_state_lower"])) +
        claw_test::exact_differences("upper", bounds.upper,
                                     claw_test::to_matrix(c["expected_command_state_upper"])) +
        claw_test::exact_differences("initial", initial,
                                     claw_test::to_matrix(c["expected_initial_command_state"]));
    INFO(differences);
    REQUIRE(differences.empty());

    Eigen::VectorXi encoder_motor_index(n), map(n);
    for (Eigen::Index j = 0; j < n; ++j)
      encoder_motor_index(j) = c["encoder_motor_index"][static_cast<std::size_t>(j)].get<int>();
    bool is_identity = false;
    REQUIRE(claw::encoder_to_motor_map(encoder_motor_index, map, is_identity) == Status::Ok);
    const auto& expected_map = c["expected_encoder_to_motor_map"];
    if (expected_map.is_string()) {
      REQUIRE(expected_map.get<std::string>() == "identity");
      REQUIRE(is_identity);
    } else {
      REQUIRE_FALSE(is_identity);
      for (Eigen::Index j = 0; j < n; ++j)
        REQUIRE(map(j) == expected_map[static_cast<std::size_t>(j)].get<int>());
    }
  }
}

TEST_CASE("derive_pd_command_bounds and encoder_to_motor_map refuse bad parameters",
          "[pd_controller][bad-input]") {
  claw::MotorLimits<double, 1> motors;
  motors.position_lower << -1;
  motors.position_upper << 1;
  motors.velocity_limit << 5;
  motors.effort_limit << 10;
  motors.mechanical_reduction << 1;
  const Eigen::Matrix<double, 1, 1> kp(100.0), kd(0.01);
  claw::StateBounds<double, 1> bounds;
  bounds.lower.setConstant(7.0);
  bounds.upper.setConstant(7.0);
  const claw::PdBoundsOptions<double> options;
  REQUIRE(claw::derive_pd_command_bounds(motors, kp, kd, 0.0, options, bounds) ==
          Status::InvalidParameter);
  REQUIRE(claw::derive_pd_command_bounds(motors, kp, kd, std::nan(""), options, bounds) ==
          Status::InvalidParameter);
  motors.mechanical_reduction << 0;
  REQUIRE(claw::derive_pd_command_bounds(motors, kp, kd, 0.04, options, bounds) ==
          Status::InvalidParameter);
  motors.mechanical_reduction << 1;
  motors.effort_limit << 0;  // with kp = 0: 0 / 0 is NaN
  REQUIRE(claw::derive_pd_command_bounds(motors, Eigen::Matrix<double, 1, 1>(0.0), kd, 0.04,
                                         options, bounds) == Status::InvalidParameter);
  REQUIRE(bounds.lower(0, 0) == 7.0);  // untouched on failure
  Eigen::Vector3i not_a_permutation(0, 0, 2), map(0, 0, 0);
  bool identity = false;
  REQUIRE(claw::encoder_to_motor_map(not_a_permutation, map, identity) == Status::InvalidParameter);
}

TEST_CASE("encoder_to_motor_map accepts exactly the permutations of 0..n-1",
          "[pd_controller][bad-input]") {
  // For n = 3 the motor indices are 0, 1, 2: a map with index n = 3 (or -1) has no motor to read,
  // even when its entries are distinct, and is refused with the map left as it was.
  Eigen::Vector3i map(7, 7, 7);
  bool identity = true;
  REQUIRE(claw::encoder_to_motor_map(Eigen::Vector3i(2, 0, 1), map, identity) == Status::Ok);
  CHECK(map == Eigen::Vector3i(2, 0, 1));
  CHECK_FALSE(identity);
  map.setConstant(7);
  for (const Eigen::Vector3i& bad :
       {Eigen::Vector3i(0, 1, 3), Eigen::Vector3i(3, 0, 1), Eigen::Vector3i(-1, 0, 1)}) {
    INFO("indices " << bad.transpose());
    CHECK(claw::encoder_to_motor_map(bad, map, identity) == Status::InvalidParameter);
    CHECK(map == Eigen::Vector3i(7, 7, 7));
  }
  REQUIRE(claw::encoder_to_motor_map(Eigen::Vector3i(0, 1, 2), map, identity) == Status::Ok);
  CHECK(map == Eigen::Vector3i(0, 1, 2));
  CHECK(identity);
}

namespace {
// Unit-mass double integrator x'' = tau under the PD block holding the command state at 0;
// returns max |x - x_closed_form| over [0, T] for the critically damped continuous law.
double critically_damped_error(double control_dt) {
  const double w = 10.0, x0 = 1.0, v0 = 0.0, duration = 1.5;
  claw::PdController<double, 1> block;
  auto settings = make_settings<double, 1>(1, w * w, 2.0 / w, kInf, control_dt);
  REQUIRE(block.configure(settings) == Status::Ok);
  REQUIRE(block.set_command_state(claw::StateMatrix<double, 1>::Zero()) == Status::Ok);
  Eigen::Matrix<double, 1, 1> x(x0), v(v0), tau, zero(0.0);
  double max_error = 0.0;
  const int steps = static_cast<int>(std::lround(duration / control_dt));
  for (int k = 0; k < steps; ++k) {
    REQUIRE(block.update(x, v, zero, tau) == Status::Ok);
    x(0) += v(0) * control_dt + 0.5 * tau(0) * control_dt * control_dt;  // exact for constant tau
    v(0) += tau(0) * control_dt;
    const double t = (k + 1) * control_dt;
    const double closed = (x0 + (v0 + w * x0) * t) * std::exp(-w * t);
    max_error = std::max(max_error, std::fabs(x(0) - closed));
  }
  return max_error;
}
}  // namespace

TEST_CASE("PD block on a unit mass converges to the critically damped solution with O(dt) error",
          "[pd_controller][closed-form]") {
  const double coarse = critically_damped_error(2e-3);
  const double fine = critically_damped_error(1e-3);
  INFO("max error dt=2ms " << coarse << ", dt=1ms " << fine);
  REQUIRE(fine < 0.01);
  const double ratio = coarse / fine;
  REQUIRE(ratio > 1.8);  // first order: halving dt halves the error
  REQUIRE(ratio < 2.2);
}

TEST_CASE("PD block clips the effort and keeps exact values at and inside the limit",
          "[pd_controller]") {
  claw::PdController<double, 3> block;
  auto settings = make_settings<double, 3>(3, 100.0, 0.1, 50.0, 1e-3);
  settings.effort_limit << 50.0, kInf, 0.0;
  REQUIRE(block.configure(settings) == Status::Ok);
  REQUIRE(block.set_command_state(claw::StateMatrix<double, 3>::Zero()) == Status::Ok);
  Eigen::Vector3d q(-1.0, -1.0, -1.0), v(0.0, 0.0, 0.0), zero = Eigen::Vector3d::Zero(), out;
  REQUIRE(block.update(q, v, zero, out) == Status::Ok);
  REQUIRE(out(0) == 50.0);   // 100 * 1 = 100 clipped to 50
  REQUIRE(out(1) == 100.0);  // infinite limit: kp e
  REQUIRE(out(2) == 0.0);    // zero limit
  q << 1.0, 0.2, 0.3;
  v << 0.0, 0.5, 0.0;
  REQUIRE(block.update(q, v, zero, out) == Status::Ok);
  REQUIRE(out(0) == -50.0);
  REQUIRE(out(1) == 100.0 * ((0.0 - 0.2) + 0.1 * (0.0 - 0.5)));  // -25
}

TEST_CASE("PD block reset clips the measurement into the bounds and integrates nothing",
          "[pd_controller]") {
  claw::PdController<double, 2> block;
  auto settings = make_settings<double, 2>(2, 100.0, 0.05, kInf, 1e-3);
  REQUIRE(block.configure(settings) == Status::Ok);
  Eigen::Vector2d q(3.0, 0.5), v(-7.0, 1.0), out;
  REQUIRE(block.reset(q, v, out) == Status::Ok);
  const auto& s = block.command_state();
  REQUIRE(s(0, 0) == 2.0);   // clipped to the position bound
  REQUIRE(s(1, 0) == -5.0);  // clipped to the velocity bound
  REQUIRE(s(0, 1) == 0.5);
  REQUIRE(s(1, 1) == 1.0);
  REQUIRE(s(2, 0) == 0.0);
  REQUIRE(s(2, 1) == 0.0);
  REQUIRE(out(0) == 100.0 * ((2.0 - 3.0) + 0.05 * (-5.0 + 7.0)));
  REQUIRE(out(1) == 0.0);  // inside the bounds: bumpless, zero effort
}

TEST_CASE("PD block refuses bad input and bad settings, keeping state, output and settings",
          "[pd_controller][bad-input]") {
  claw::PdControllerXd block(2);
  auto settings = make_settings<double, claw::Dynamic>(2, 100.0, 0.05, 50.0, 1e-3);
  REQUIRE(block.configure(settings) == Status::Ok);
  Eigen::Vector2d q(0.1, 0.2), v(0.0, 0.0), a(1.0, 2.0), out(3.0, 4.0);
  REQUIRE(block.update(q, v, a, out) == Status::Ok);
  const MatrixXd state_before = block.command_state();
  const Eigen::Vector2d out_before = out;
  for (int which = 0; which < 3; ++which)
    for (double bad : {std::nan(""), kInf, -kInf}) {
      Eigen::Vector2d q2 = q, v2 = v, a2 = a;
      (which == 0 ? q2 : which == 1 ? v2 : a2)(1) = bad;
      REQUIRE(block.update(q2, v2, a2, out) == Status::NonFiniteInput);
      REQUIRE(block.reset(q2, v2, out) == (which == 2 ? Status::Ok : Status::NonFiniteInput));
      if (which == 2) {  // reset does not read the acceleration: restore for the next check
        REQUIRE(block.set_command_state(state_before) == Status::Ok);
        out = out_before;
        continue;
      }
      REQUIRE(block.command_state() == state_before);
      REQUIRE(out == out_before);
    }
  // Invalid settings are refused and the old ones kept.
  auto bad_bounds = settings;
  bad_bounds.bounds.lower(0, 1) = 3.0;  // lower > upper
  REQUIRE(block.configure(bad_bounds) == Status::InvalidBounds);
  auto bad_dt = settings;
  bad_dt.control_dt = -1e-3;
  REQUIRE(block.configure(bad_dt) == Status::InvalidParameter);
  REQUIRE(block.set_gains(Eigen::Vector2d(-1.0, 1.0), Eigen::Vector2d(0.0, 0.0)) ==
          Status::InvalidParameter);
  REQUIRE(block.set_gains(Eigen::Vector2d(1.0, std::nan("")), Eigen::Vector2d(0.0, 0.0)) ==
          Status::InvalidParameter);
  REQUIRE(block.set_effort_limit(Eigen::Vector2d(-1.0, 1.0)) == Status::InvalidParameter);
  REQUIRE(block.settings().kp == settings.kp);
  REQUIRE(block.settings().bounds.lower == settings.bounds.lower);
  REQUIRE(block.settings().effort_limit == settings.effort_limit);
  REQUIRE(block.settings().control_dt == settings.control_dt);
  // Overflow of huge finite inputs: status, and that joint's output is held.
  auto huge = make_settings<double, claw::Dynamic>(2, 1e300, 1e10, kInf, 1e-3);
  huge.bounds.lower.setConstant(-kInf);
  huge.bounds.upper.setConstant(kInf);
  REQUIRE(block.configure(huge) == Status::Ok);
  out << 3.0, 4.0;
  REQUIRE(block.update(Eigen::Vector2d(-1e300, 0.0), Eigen::Vector2d(0.0, 0.0),
                       Eigen::Vector2d(0.0, 0.0), out) == Status::NumericalOverflow);
  REQUIRE(out(0) == 3.0);
  REQUIRE(std::isfinite(out(1)));
}

TEST_CASE("a batch of robots in one long vector equals each robot on its own",
          "[pd_controller][batch]") {
  const int robots = 64, joints = 12, n = robots * joints;
  claw::PdControllerXd batch(n);
  auto settings = make_settings<double, claw::Dynamic>(n, 80.0, 0.02, 40.0, 2e-3);
  REQUIRE(batch.configure(settings) == Status::Ok);
  std::vector<claw::PdController<double, 12>> singles(robots);
  auto single_settings = make_settings<double, 12>(12, 80.0, 0.02, 40.0, 2e-3);
  for (auto& s : singles) REQUIRE(s.configure(single_settings) == Status::Ok);
  VectorXd q = VectorXd::Random(n), v = VectorXd::Random(n), out(n);
  REQUIRE(batch.reset(q, v, out) == Status::Ok);
  Eigen::Matrix<double, 12, 1> single_out;
  for (int r = 0; r < robots; ++r)
    REQUIRE(singles[static_cast<std::size_t>(r)].reset(
                q.segment<12>(r * joints), v.segment<12>(r * joints), single_out) == Status::Ok);
  for (int k = 0; k < 50; ++k) {
    const VectorXd a = 200.0 * VectorXd::Random(n);
    q += 0.002 * v;
    REQUIRE(batch.update(q, v, a, out) == Status::Ok);
    for (int r = 0; r < robots; ++r) {
      REQUIRE(singles[static_cast<std::size_t>(r)].update(
                  q.segment<12>(r * joints), v.segment<12>(r * joints), a.segment<12>(r * joints),
                  single_out) == Status::Ok);
      REQUIRE(single_out == out.segment<12>(r * joints));
      REQUIRE(singles[static_cast<std::size_t>(r)].command_state() ==
              batch.command_state().middleCols<12>(r * joints));
    }
  }
}

TEMPLATE_TEST_CASE("PD block hot calls allocate nothing", "[pd_controller][allocation]", float,
                   double) {
  using S = TestType;
  for (claw::ZohMode mode : {claw::ZohMode::JiminyCompatible, claw::ZohMode::Viable}) {
    claw::PdController<S, 7> fixed;
    auto fixed_settings = make_settings<S, 7>(7, S(100), S(0.01), S(50), S(1e-3));
    fixed_settings.mode = mode;
    REQUIRE(fixed.configure(fixed_settings) == Status::Ok);
    claw::PdController<S, claw::Dynamic> dynamic(300);
    auto dynamic_settings = make_settings<S, claw::Dynamic>(300, S(100), S(0.01), S(50), S(1e-3));
    dynamic_settings.mode = mode;
    REQUIRE(dynamic.configure(dynamic_settings) == Status::Ok);
    claw::PdController<S, claw::Dynamic, 16> bounded(9);
    auto bounded_settings = make_settings<S, claw::Dynamic>(9, S(100), S(0.01), S(50), S(1e-3));
    typename claw::PdController<S, claw::Dynamic, 16>::Settings bs;
    bs.bounds.lower = bounded_settings.bounds.lower;
    bs.bounds.upper = bounded_settings.bounds.upper;
    bs.kp = bounded_settings.kp;
    bs.kd = bounded_settings.kd;
    bs.effort_limit = bounded_settings.effort_limit;
    bs.control_dt = bounded_settings.control_dt;
    bs.mode = mode;
    REQUIRE(bounded.configure(bs) == Status::Ok);
    const claw::Vector<S, 7> q7 = claw::Vector<S, 7>::Constant(S(0.3)),
                             a7 = claw::Vector<S, 7>::Constant(S(5));
    claw::Vector<S, 7> out7;
    const claw::Vector<S, claw::Dynamic> qd = claw::Vector<S, claw::Dynamic>::Constant(300, S(0.3));
    claw::Vector<S, claw::Dynamic> outd(300);
    const claw::Vector<S, claw::Dynamic, 16> qb =
        claw::Vector<S, claw::Dynamic, 16>::Constant(9, S(0.3));
    claw::Vector<S, claw::Dynamic, 16> outb(9);
    Status statuses[7] = {};
    const std::size_t allocations = claw_test::allocations_during([&] {
      statuses[0] = fixed.reset(q7, q7, out7);
      statuses[1] = fixed.update(q7, q7, a7, out7);
      statuses[2] = dynamic.reset(qd, qd, outd);
      statuses[3] = dynamic.update(qd, qd, qd, outd);
      statuses[4] = bounded.update(qb, qb, qb, outb);
      statuses[5] = fixed.set_gains(fixed_settings.kp, fixed_settings.kd);
      statuses[6] = dynamic.update(qd, qd, qd * S(1e3), outd);
    });
    for (Status s : statuses) REQUIRE(s == Status::Ok);
    REQUIRE(allocations == 0);
  }
}
