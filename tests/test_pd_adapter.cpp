// tests/test_pd_adapter.cpp: blocks/pd_adapter.hpp against gym_jiminy's reference vectors (bit for
// bit), adapter + PD block reaching a position target on a unit mass, bad input and allocation.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "claw/blocks/pd_adapter.hpp"
#include "support/alloc_counter.hpp"
#include "support/reference.hpp"

using claw::Status;
using Eigen::MatrixXd;
using Eigen::VectorXd;

TEST_CASE("pd_adapter reproduces gym_jiminy bit for bit", "[conformance][pd_adapter]") {
  const auto cases = claw_test::load_reference("jiminy", "pd_adapter.json");
  REQUIRE(!cases.empty());
  int class_cases = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pd_adapter.json", c));
    const VectorXd action = claw_test::to_vector(c["action"]);
    const auto order =
        c["order"].get<int>() == 0 ? claw::PdActionOrder::Position : claw::PdActionOrder::Velocity;
    const MatrixXd lower = claw_test::to_matrix(c["command_state_lower"]);
    const MatrixXd upper = claw_test::to_matrix(c["command_state_upper"]);
    const bool instantaneous = c["is_instantaneous"].get<bool>();
    const VectorXd deadband = c["motors_velocity_deadband"].is_null()
                                  ? VectorXd()
                                  : claw_test::to_vector(c["motors_velocity_deadband"]);
    const double step_dt = claw_test::to_double(c["step_dt"]);
    const MatrixXd expected_state = claw_test::to_matrix(c["expected_command_state"]);
    const MatrixXd expected_out = claw_test::to_vector(c["expected_out"]);

    MatrixXd state = claw_test::to_matrix(c["command_state"]);
    VectorXd out = claw_test::to_vector(c["out_init"]);
    REQUIRE(claw::pd_adapter(action, order, state, lower, upper, instantaneous, deadband, step_dt,
                             out) == Status::Ok);
    std::string differences = claw_test::exact_differences("command_state", state, expected_state) +
                              claw_test::exact_differences("out", out, expected_out);
    INFO(differences);
    REQUIRE(differences.empty());

    // The PdAdapter block on a PdController holding the case's state and bounds, where the
    // block accepts the settings (it refuses step_dt < 1e-9 s, and bounds with lower > upper).
    if (step_dt < 1e-9 || claw::validate_state_bounds(lower, upper) != Status::Ok) continue;
    ++class_cases;
    const Eigen::Index n = state.cols();
    claw::PdControllerXd controller(n);
    claw::PdControllerXd::Settings controller_settings;
    controller_settings.bounds = {lower, upper};
    controller_settings.kp = VectorXd::Ones(n);
    controller_settings.kd = VectorXd::Zero(n);
    controller_settings.effort_limit = VectorXd::Ones(n);
    controller_settings.control_dt = 1e-3;
    REQUIRE(controller.configure(controller_settings) == Status::Ok);
    REQUIRE(controller.set_command_state(claw_test::to_matrix(c["command_state"])) == Status::Ok);
    claw::PdAdapterXd adapter(n);
    claw::PdAdapterXd::Settings settings;
    settings.order = order;
    settings.instantaneous = instantaneous;
    settings.step_dt = step_dt;
    settings.use_deadband = deadband.size() != 0;
    settings.velocity_deadband = settings.use_deadband ? deadband : VectorXd::Zero(n);
    REQUIRE(adapter.configure(settings) == Status::Ok);
    VectorXd block_out = claw_test::to_vector(c["out_init"]);
    REQUIRE(adapter.update(action, controller, block_out) == Status::Ok);
    differences = claw_test::exact_differences("block command_state", controller.command_state(),
                                               expected_state) +
                  claw_test::exact_differences("block out", block_out, expected_out);
    INFO(differences);
    REQUIRE(differences.empty());
  }
  REQUIRE(class_cases > 0);
}

TEST_CASE("adapter + PD block bring a unit mass to a constant position target",
          "[pd_adapter][property]") {
  const double control_dt = 0.004, step_dt = 0.04, target = 0.7;
  const int substeps = 10;
  for (auto order : {claw::PdActionOrder::Position, claw::PdActionOrder::Velocity}) {
    for (auto mode : {claw::ZohMode::JiminyCompatible, claw::ZohMode::Viable}) {
      INFO("order " << int(order) << " mode " << int(mode));
      claw::PdController<double, 1> controller;
      claw::PdController<double, 1>::Settings settings;
      settings.bounds.lower << -1.0, -2.0, -50.0;
      settings.bounds.upper << 1.0, 2.0, 50.0;
      settings.kp << 400.0;
      settings.kd << 0.1;  // parallel derivative gain 40 = 2 sqrt(400): critically damped
      settings.effort_limit << 200.0;
      settings.control_dt = control_dt;
      settings.mode = mode;
      REQUIRE(controller.configure(settings) == Status::Ok);
      claw::PdAdapter<double, 1> adapter;
      claw::PdAdapter<double, 1>::Settings adapter_settings;
      adapter_settings.order = order;
      adapter_settings.step_dt = step_dt;
      REQUIRE(adapter.configure(adapter_settings) == Status::Ok);
      Eigen::Matrix<double, 1, 1> q(-0.3), v(0.0), tau, acceleration;
      REQUIRE(controller.reset(q, v, tau) == Status::Ok);
      for (int step = 0; step < 150; ++step) {  // 6 s
        // Order 0: the target position; order 1: a velocity proportional to the command error.
        Eigen::Matrix<double, 1, 1> action(order == claw::PdActionOrder::Position
                                               ? target
                                               : 5.0 * (target - controller.command_state()(0, 0)));
        REQUIRE(adapter.update(action, controller, acceleration) == Status::Ok);
        for (int k = 0; k < substeps; ++k) {
          REQUIRE(controller.update(q, v, acceleration, tau) == Status::Ok);
          q(0) += v(0) * control_dt + 0.5 * tau(0) * control_dt * control_dt;
          v(0) += tau(0) * control_dt;
          // The command never leaves its velocity and position bounds on the way.
          REQUIRE(std::fabs(controller.command_state()(1, 0)) <= 2.0);
          REQUIRE(std::fabs(controller.command_state()(0, 0)) <= 1.0);
        }
      }
      REQUIRE(std::fabs(controller.command_state()(0, 0) - target) < 1e-6);
      REQUIRE(std::fabs(q(0) - target) < 1e-3);
      REQUIRE(std::fabs(v(0)) < 1e-3);
    }
  }
}

TEST_CASE("pd_adapter and PdAdapter refuse bad input and touch nothing",
          "[pd_adapter][bad-input]") {
  MatrixXd lower(3, 2), upper(3, 2), state(3, 2);
  lower << -1, -1, -2, -2, -20, -20;
  upper = -lower;
  state << 0.1, 0.2, 0.3, 0.4, 0.5, 0.6;
  const MatrixXd state_before = state;
  VectorXd out(2);
  out << 7.0, 8.0;
  const VectorXd out_before = out;
  const VectorXd no_deadband;
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (bool instantaneous : {false, true})
    for (auto order : {claw::PdActionOrder::Position, claw::PdActionOrder::Velocity}) {
      REQUIRE(claw::pd_adapter(Eigen::Vector2d(nan, 0.0), order, state, lower, upper, instantaneous,
                               no_deadband, 0.04, out) == Status::NonFiniteInput);
      REQUIRE(claw::pd_adapter(Eigen::Vector2d(0.0, inf), order, state, lower, upper, instantaneous,
                               no_deadband, 0.04, out) == Status::NonFiniteInput);
      REQUIRE(claw::pd_adapter(Eigen::Vector2d(0.0, 0.0), order, state, lower, upper, instantaneous,
                               no_deadband, nan, out) == Status::NonFiniteInput);
      REQUIRE(claw::pd_adapter(Eigen::Vector2d(0.0, 0.0), order, state, lower, upper, instantaneous,
                               Eigen::Vector2d(-1.0, 0.0), 0.04, out) == Status::InvalidParameter);
      REQUIRE(state == state_before);
      REQUIRE(out == out_before);
    }
  claw::PdAdapterXd adapter(2);
  claw::PdAdapterXd::Settings settings;
  settings.velocity_deadband = VectorXd::Zero(2);
  settings.step_dt = -0.04;  // gym_jiminy's function accepts it; the block refuses
  REQUIRE(adapter.configure(settings) == Status::InvalidParameter);
  settings.step_dt = 0.04;
  settings.velocity_deadband << 0.1, nan;
  REQUIRE(adapter.configure(settings) == Status::InvalidParameter);
  REQUIRE(adapter.settings().velocity_deadband == VectorXd::Zero(2));
  claw::PdControllerXd controller(2);
  REQUIRE(adapter.update(Eigen::Vector2d(nan, 0.0), controller, out) == Status::NonFiniteInput);
  REQUIRE(out == out_before);
}

TEMPLATE_TEST_CASE("PdAdapter::update allocates nothing", "[pd_adapter][allocation]", float,
                   double) {
  using S = TestType;
  claw::PdController<S, 7> fixed_controller;
  claw::PdAdapter<S, 7> fixed_adapter;
  claw::PdController<S, claw::Dynamic> dynamic_controller(100);
  claw::PdAdapter<S, claw::Dynamic> dynamic_adapter(100);
  for (bool instantaneous : {false, true}) {
    auto fixed_settings = fixed_adapter.settings();
    fixed_settings.instantaneous = instantaneous;
    REQUIRE(fixed_adapter.configure(fixed_settings) == Status::Ok);
    auto dynamic_settings = dynamic_adapter.settings();
    dynamic_settings.instantaneous = instantaneous;
    dynamic_settings.order = claw::PdActionOrder::Position;
    REQUIRE(dynamic_adapter.configure(dynamic_settings) == Status::Ok);
    const claw::Vector<S, 7> action7 = claw::Vector<S, 7>::Constant(S(0.5));
    claw::Vector<S, 7> out7;
    const claw::Vector<S, claw::Dynamic> action =
        claw::Vector<S, claw::Dynamic>::Constant(100, S(0.5));
    claw::Vector<S, claw::Dynamic> out(100);
    Status s1 = Status::InvalidProblem, s2 = Status::InvalidProblem;
    const std::size_t allocations = claw_test::allocations_during([&] {
      s1 = fixed_adapter.update(action7, fixed_controller, out7);
      s2 = dynamic_adapter.update(action, dynamic_controller, out);
    });
    REQUIRE(s1 == Status::Ok);
    REQUIRE(s2 == Status::Ok);
    REQUIRE(allocations == 0);
  }
}
