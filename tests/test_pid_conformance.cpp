// tests/test_pid_conformance.cpp: the MuJoCo (plugin, native) and CoppeliaSim presets against the
// vectors recorded from those systems, step by step, with claw carrying its own state (no reload
// from the file); the Drake preset against Drake's PidController tests, the Arduino preset against
// PID_v1 run on its examples.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "claw/laws/activation.hpp"
#include "claw/laws/pid_presets.hpp"
#include "support/infinity.hpp"
#include "support/reference.hpp"

using claw::Status;

namespace {

// |a - e| <= 1e-12 |e|, or <= 1e-12 absolute near zero.
bool close(double actual, double expected) {
  return std::fabs(actual - expected) <= 1e-12 * std::max(1.0, std::fabs(expected));
}

double value_or(const nlohmann::json& v, double fallback) {
  return v.is_null() ? fallback : claw_test::to_double(v);
}

void range_or_inf(const nlohmann::json& range, double& lo, double& hi) {
  lo = -kInf;
  hi = kInf;
  if (range.is_array()) {
    lo = claw_test::to_double(range[0]);
    hi = claw_test::to_double(range[1]);
  }
}

using Pid1 = claw::Pid<double, 1>;
using V1 = Eigen::Matrix<double, 1, 1>;

}  // namespace

TEST_CASE("MuJoCo plugin preset reproduces mujoco.pid step by step", "[conformance][pid][mujoco]") {
  const auto cases = claw_test::load_reference("mujoco", "pid_plugin.json");
  REQUIRE(!cases.empty());
  int checked_steps = 0, checked_cases = 0, without_steps = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pid_plugin.json", c) << " index " << c["index"].dump());
    const auto& cfg = c["config"];
    // Counted: models MuJoCo refused to compile (they have no steps); every other case runs.
    if (!c["compile_error"].is_null()) {
      REQUIRE(c["steps"].empty());
      ++without_steps;
      continue;
    }
    // An activation dynamics in front of the plugin: the PID tracks the activation (its last act
    // slot, the next one with actearly) with that slot's act_dot as the target velocity; MuJoCo
    // clamps ctrl to ctrlrange before the dynamics, and not the activation after it.
    const std::string dyntype = cfg["dyntype"].get<std::string>();
    claw::ActivationSettings<double, 1> dynamics;
    if (dyntype == "integrator") {
      dynamics.kind = claw::ActivationKind::Integrator;
    } else if (dyntype == "filter" || dyntype == "filterexact") {
      dynamics.kind =
          dyntype == "filter" ? claw::ActivationKind::Filter : claw::ActivationKind::FilterExact;
      dynamics.time_constant << claw_test::to_double(cfg["dynprm0"]);
    } else {
      REQUIRE(dyntype == "none");
    }
    dynamics.early = cfg.value("actearly", false);
    dynamics.dt = claw_test::to_double(cfg["timestep"]);
    claw::ActivationDynamics<double, 1> activation;
    REQUIRE(activation.configure(dynamics) == Status::Ok);
    const bool has_dynamics = dynamics.kind != claw::ActivationKind::None;
    ++checked_cases;
    claw::presets::MujocoPluginPid<double> p;
    p.kp = claw_test::to_double(cfg["kp"]);
    p.ki = claw_test::to_double(cfg["ki"]);
    p.kd = claw_test::to_double(cfg["kd"]);
    p.imax = value_or(cfg["imax"], kInf);
    p.slewmax = value_or(cfg["slewmax"], kInf);
    range_or_inf(cfg["ctrlrange"], p.ctrl_min, p.ctrl_max);
    range_or_inf(cfg["forcerange"], p.force_min, p.force_max);
    p.timestep = claw_test::to_double(cfg["timestep"]);
    const bool has_integral = p.ki != 0.0;
    const bool has_slew = !cfg["slewmax"].is_null();
    const double ctrl_min = p.ctrl_min, ctrl_max = p.ctrl_max;
    if (has_dynamics) p.ctrl_min = -kInf, p.ctrl_max = kInf;

    Pid1 pid;
    REQUIRE(pid.configure(claw::presets::mujoco_plugin<double, 1>(1, p)) == Status::Ok);
    Pid1 unlimited;  // the same law without forcerange gives force_raw
    auto raw_settings = claw::presets::mujoco_plugin<double, 1>(1, p);
    raw_settings.limits = claw::EffortLimits<double, 1>::none();
    REQUIRE(unlimited.configure(raw_settings) == Status::Ok);

    for (std::size_t k = 0; k < c["steps"].size(); ++k) {
      const auto& step = c["steps"][k];
      INFO("step " << k);
      const double ctrl = claw_test::to_double(step["ctrl"]);
      const V1 q(claw_test::to_double(step["length"]));
      const V1 v(claw_test::to_double(step["velocity"]));
      const V1 activation_before = activation.activation();
      V1 target, target_velocity;
      REQUIRE(activation.update(V1(has_dynamics ? std::clamp(ctrl, ctrl_min, ctrl_max) : ctrl),
                                target, target_velocity) == Status::Ok);
      V1 force, force_raw;
      const V1 zero(0.0);
      if (dynamics.early) {
        // actearly: MuJoCo's force reads the activation after this step's advance, while the
        // plugin's own states (z, s) advance from the one before it (its act_dot is taken without
        // actearly). Copies of the PIDs give the force; the PIDs themselves carry the states.
        Pid1 force_pid = pid, raw_pid = unlimited;
        REQUIRE(force_pid.update(target, target_velocity, zero, q, v, force) == Status::Ok);
        REQUIRE(raw_pid.update(target, target_velocity, zero, q, v, force_raw) == Status::Ok);
        V1 scratch;
        REQUIRE(pid.update(activation_before, target_velocity, zero, q, v, scratch) == Status::Ok);
        REQUIRE(unlimited.update(activation_before, target_velocity, zero, q, v, scratch) ==
                Status::Ok);
      } else {
        REQUIRE(pid.update(target, target_velocity, zero, q, v, force) == Status::Ok);
        REQUIRE(unlimited.update(target, target_velocity, zero, q, v, force_raw) == Status::Ok);
      }
      CHECK(close(force_raw(0), claw_test::to_double(step["force_raw"])));
      REQUIRE(close(force(0), claw_test::to_double(step["force"])));
      // act_after, in MuJoCo's units and slot order: [z (if ki != 0), s (if slewmax), the
      // activation (if a dyntype)].
      const auto& act = step["act_after"];
      std::size_t slot = 0;
      if (has_integral) REQUIRE(close(pid.error_integral(0), claw_test::to_double(act[slot++])));
      if (has_slew) REQUIRE(close(pid.slew_state()(0), claw_test::to_double(act[slot++])));
      if (has_dynamics)
        REQUIRE(close(activation.activation()(0), claw_test::to_double(act[slot++])));
      REQUIRE(slot == act.size());
      ++checked_steps;
    }
  }
  WARN("mujoco pid_plugin: " << checked_cases << " cases checked, " << without_steps
                             << " without steps (compile errors)");
  CHECK(checked_cases + without_steps == static_cast<int>(cases.size()));
  CHECK(checked_cases > without_steps);
  REQUIRE(checked_steps > 0);
}

TEST_CASE("MuJoCo native preset reproduces <pid> step by step", "[conformance][pid][mujoco]") {
  const auto cases = claw_test::load_reference("mujoco", "pid_native.json");
  REQUIRE(!cases.empty());
  int checked_steps = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pid_native.json", c) << " index " << c["index"].dump());
    if (!c["compile_error"].is_null()) continue;  // MuJoCo refused the model: no steps
    const auto& cfg = c["config"];
    claw::presets::MujocoNativePid<double> p;
    p.kp = claw_test::to_double(cfg["kp"]);
    p.ki = claw_test::to_double(cfg["ki"]);
    p.kv = claw_test::to_double(cfg["kd"]);
    p.imax = value_or(cfg["imax"], 0.0);
    p.slewmax = value_or(cfg["slewmax"], 0.0);
    range_or_inf(cfg["ctrlrange"], p.pos_min, p.pos_max);
    range_or_inf(cfg.value("velrange", nlohmann::json()), p.vel_min, p.vel_max);
    range_or_inf(cfg.value("ffrange", nlohmann::json()), p.ff_min, p.ff_max);
    range_or_inf(cfg["forcerange"], p.force_min, p.force_max);
    p.actearly = cfg.value("actearly", false);
    p.timestep = claw_test::to_double(cfg["timestep"]);
    const bool has_slew = p.slewmax > 0.0;
    const bool has_integral = p.ki > 0.0;
    // Control inputs, in the case's order (canonical: pos, vel, ff).
    int pos_slot = -1, vel_slot = -1, ff_slot = -1;
    for (std::size_t i = 0; i < cfg["input"].size(); ++i) {
      const std::string name = cfg["input"][i].get<std::string>();
      (name == "pos" ? pos_slot : name == "vel" ? vel_slot : ff_slot) = static_cast<int>(i);
    }
    REQUIRE(pos_slot >= 0);

    Pid1 pid;
    REQUIRE(pid.configure(claw::presets::mujoco_native<double, 1>(1, p)) == Status::Ok);
    Pid1 unlimited;
    auto raw_settings = claw::presets::mujoco_native<double, 1>(1, p);
    raw_settings.limits = claw::EffortLimits<double, 1>::none();
    REQUIRE(unlimited.configure(raw_settings) == Status::Ok);

    for (std::size_t k = 0; k < c["steps"].size(); ++k) {
      const auto& step = c["steps"][k];
      INFO("step " << k);
      const auto& ctrl = step["ctrl"];
      auto input = [&ctrl](int slot) {
        return slot < 0 ? 0.0 : claw_test::to_double(ctrl[static_cast<std::size_t>(slot)]);
      };
      const V1 target(input(pos_slot)), target_velocity(input(vel_slot)), ff(input(ff_slot));
      const V1 q(claw_test::to_double(step["length"]));
      const V1 v(claw_test::to_double(step["velocity"]));
      V1 force, force_raw;
      REQUIRE(pid.update(target, target_velocity, ff, q, v, force) == Status::Ok);
      REQUIRE(unlimited.update(target, target_velocity, ff, q, v, force_raw) == Status::Ok);
      CHECK(close(force_raw(0), claw_test::to_double(step["force_raw"])));
      REQUIRE(close(force(0), claw_test::to_double(step["force"])));
      // act_after slots: [s (if slewmax > 0), z (if ki > 0)].
      const auto& act = step["act_after"];
      std::size_t slot = 0;
      if (has_slew) REQUIRE(close(pid.slew_state()(0), claw_test::to_double(act[slot++])));
      if (has_integral) REQUIRE(close(pid.error_integral(0), claw_test::to_double(act[slot++])));
      REQUIRE(slot == act.size());
      ++checked_steps;
    }
  }
  REQUIRE(checked_steps > 0);
}

TEST_CASE("CoppeliaSim preset reproduces the default joint callback",
          "[conformance][pid][coppelia]") {
  const auto cases = claw_test::load_reference("coppelia", "velocity_pid.json");
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    INFO(claw_test::case_label("velocity_pid.json", c));
    claw::VelocityServo<double, 1> servo;
    claw::presets::CoppeliaSimJoint<double> joint;
    joint.kp = claw_test::to_double(c["kp"]);
    joint.ki = claw_test::to_double(c["ki"]);
    joint.kd = claw_test::to_double(c["kd"]);
    joint.velocity_limit = claw_test::to_double(c["vel_upper_limit"]);
    joint.max_force = claw_test::to_double(c["max_force"]);
    joint.dt = claw_test::to_double(c["dt"]);
    REQUIRE(servo.configure(claw::presets::coppeliasim_joint<double, 1>(joint)) == Status::Ok);
    const auto& errors = c["error"];
    REQUIRE(errors.size() == c["expected_velocity"].size());
    for (std::size_t k = 0; k < errors.size(); ++k) {
      INFO("step " << k);
      V1 velocity(0.0), force(0.0);
      REQUIRE(servo.update(V1(claw_test::to_double(errors[k])), velocity, force) == Status::Ok);
      REQUIRE(close(velocity(0), claw_test::to_double(c["expected_velocity"][k])));
      REQUIRE(close(force(0), claw_test::to_double(c["expected_force"][k])));
    }
  }
}

namespace {

// A case's "compare": "exact" (bit for bit, -0 == +0) or "absolute <tolerance>".
double drake_tolerance(const nlohmann::json& compare) {
  const std::string text = compare.get<std::string>();
  if (text == "exact") return 0.0;
  const std::string prefix = "absolute ";
  REQUIRE(text.rfind(prefix, 0) == 0);
  return std::stod(text.substr(prefix.size()));
}

// The drake preset with the case's per-joint gains (and output bounds when given), its integral
// state z installed as I = ki z; h is the sampling period.
claw::Pid<double> drake_pid(const nlohmann::json& c, double h) {
  const Eigen::VectorXd kp = claw_test::to_vector(c["kp"]);
  const Eigen::Index n = kp.size();
  claw::presets::DrakePid<double> p;
  p.dt = h;
  auto s = claw::presets::drake<double>(n, p);
  s.kp = kp;
  s.ki = claw_test::to_vector(c["ki"]);
  s.kd = claw_test::to_vector(c["kd"]);
  if (c.contains("u_min"))
    s.limits = claw::EffortLimits<double, claw::Dynamic>::bounds(
        claw_test::to_double(c["u_min"]), claw_test::to_double(c["u_max"]), n);
  claw::Pid<double> pid(n);
  REQUIRE(pid.configure(s) == Status::Ok);
  const Eigen::VectorXd z = claw_test::to_vector(c["integral_z"]);
  REQUIRE(pid.set_integral_term(s.ki.cwiseProduct(z)) == Status::Ok);
  return pid;
}

}  // namespace

TEST_CASE("Drake preset reproduces Drake's PidController tests", "[conformance][pid][drake]") {
  const auto file = claw_test::load_reference("drake", "pid_controller.json");
  const auto& cases = file["cases"];
  REQUIRE(!cases.empty());
  int checked = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pid_controller.json", c));
    if (c.contains("size_mismatch")) {
      // Gain vectors of different lengths: refused (Drake throws).
      claw::PidSettings<double, claw::Dynamic> s;
      s.resize(c["kd_size"].get<Eigen::Index>());
      s.kp.setZero(c["kp_size"].get<Eigen::Index>());
      s.ki.setZero(c["ki_size"].get<Eigen::Index>());
      claw::Pid<double> pid(s.kd.size());
      REQUIRE(pid.configure(s) == Status::SizeMismatch);
      ++checked;
      continue;
    }
    if (c.value("random", false)) {
      // Gains of either sign drawn in [-1, 1]: u = kp e + ki z + kd (v* - v) within the case's
      // tolerance, joint by joint (the projections of the original are the caller's).
      const double tolerance = drake_tolerance(c["compare"]);
      std::mt19937 rng(1234);
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      const Eigen::Index n = 6;
      claw::PidSettings<double, claw::Dynamic> s = claw::presets::drake<double>(n, {});
      Eigen::VectorXd z(n), q(n), v(n), qd(n), vd(n), out(n);
      for (Eigen::Index j = 0; j < n; ++j) {
        s.kp(j) = uniform(rng);
        s.ki(j) = uniform(rng);
        s.kd(j) = uniform(rng);
        z(j) = uniform(rng);
        q(j) = uniform(rng);
        v(j) = uniform(rng);
        qd(j) = uniform(rng);
        vd(j) = uniform(rng);
      }
      REQUIRE((s.kp.minCoeff() < 0.0 || s.ki.minCoeff() < 0.0 || s.kd.minCoeff() < 0.0));
      claw::Pid<double> pid(n);
      REQUIRE(pid.configure(s) == Status::Ok);
      REQUIRE(pid.set_integral_term(s.ki.cwiseProduct(z)) == Status::Ok);
      REQUIRE(pid.update(qd, vd, Eigen::VectorXd::Zero(n), q, v, out) == Status::Ok);
      for (Eigen::Index j = 0; j < n; ++j) {
        const double expected =
            s.kp(j) * (qd(j) - q(j)) + s.kd(j) * (vd(j) - v(j)) + s.ki(j) * z(j);
        REQUIRE(std::fabs(out(j) - expected) <= tolerance);
      }
      ++checked;
      continue;
    }
    const Eigen::VectorXd q = claw_test::to_vector(c["q"]), v = claw_test::to_vector(c["v"]);
    const Eigen::VectorXd qd = claw_test::to_vector(c["q_d"]);
    const Eigen::VectorXd vd = claw_test::to_vector(c["v_d"]);
    const Eigen::VectorXd ff = claw_test::to_vector(c["ff"]);
    Eigen::VectorXd out(q.size());
    if (c.contains("expected_dz_dt")) {
      // Drake's continuous dz/dt = e, sampled: (z+ - z) / h after one step of h = 2^-10.
      const double h = std::ldexp(1.0, -10);
      claw::Pid<double> pid = drake_pid(c, h);
      const Eigen::VectorXd z = claw_test::to_vector(c["integral_z"]);
      REQUIRE(pid.update(qd, vd, ff, q, v, out) == Status::Ok);
      const Eigen::VectorXd expected = claw_test::to_vector(c["expected_dz_dt"]);
      const double tolerance = drake_tolerance(c["compare"]);
      for (Eigen::Index j = 0; j < q.size(); ++j)
        REQUIRE(std::fabs((pid.error_integral(j) - z(j)) / h - expected(j)) <= tolerance);
      ++checked;
      continue;
    }
    claw::Pid<double> pid = drake_pid(c, 1e-3);
    REQUIRE(pid.update(qd, vd, ff, q, v, out) == Status::Ok);
    const Eigen::VectorXd expected = claw_test::to_vector(c["expected"]);
    const double tolerance = drake_tolerance(c["compare"]);
    for (Eigen::Index j = 0; j < q.size(); ++j) {
      INFO("joint " << j << ": " << out(j) << " != " << expected(j));
      REQUIRE(std::fabs(out(j) - expected(j)) <= tolerance);
    }
    ++checked;
  }
  // Every case of the file ran through one of the branches above.
  REQUIRE(checked == static_cast<int>(cases.size()));
}

TEST_CASE("Arduino preset reproduces PID_v1 on its examples and scenarios",
          "[conformance][pid][arduino]") {
  // The recorded inputs drive claw (no plant in the loop): each step's events are the example's
  // own calls, mapped to claw's API, then Compute() is update() with the current sample time.
  const auto file = claw_test::load_reference("arduino", "pid_v1.json");
  const auto& scenarios = file["scenarios"];
  REQUIRE(!scenarios.empty());
  int checked_steps = 0;
  for (const auto& sc : scenarios) {
    INFO("pid_v1.json scenario " << sc["name"].get<std::string>());
    claw::presets::ArduinoPid<double> p;
    p.kp = claw_test::to_double(sc["kp"]);
    p.ki = claw_test::to_double(sc["ki"]);
    p.kd = claw_test::to_double(sc["kd"]);
    p.out_min = claw_test::to_double(sc["out_min"]);
    p.out_max = claw_test::to_double(sc["out_max"]);
    p.proportional_on_measurement = sc["p_on"] == "P_ON_M";
    p.reverse = sc["direction"] == "REVERSE";
    double h = claw_test::to_double(sc["sample_time_ms"]) / 1000.0;
    p.sample_time = h;
    Pid1 pid;
    REQUIRE(pid.configure(claw::presets::arduino<double, 1>(p)) == Status::Ok);
    // SetMode(AUTOMATIC) -> Initialize(): outputSum = Output (clamped), lastInput = Input.
    double held = claw_test::to_double(sc["setmode_output"]);
    REQUIRE(pid.reset(V1(claw_test::to_double(sc["setmode_input"])),
                      V1(std::clamp(held, p.out_min, p.out_max))) == Status::Ok);
    bool automatic = true;
    for (const auto& step : sc["steps"]) {
      INFO("step " << step["k"].dump());
      const double input = claw_test::to_double(step["input"]);
      for (const auto& event : step["events"]) {
        const std::string call = event["call"].get<std::string>();
        if (call == "SetTunings") {
          p.kp = claw_test::to_double(event["kp"]);
          p.ki = claw_test::to_double(event["ki"]);
          p.kd = claw_test::to_double(event["kd"]);
          REQUIRE(pid.configure(claw::presets::arduino<double, 1>(p)) == Status::Ok);
        } else if (call == "SetOutputLimits") {
          // PID_v1 clamps Output and outputSum at once when automatic; configure() moves the
          // integral into the new ITermClamp bounds, the held Output is the caller's.
          p.out_min = claw_test::to_double(event["min"]);
          p.out_max = claw_test::to_double(event["max"]);
          REQUIRE(pid.configure(claw::presets::arduino<double, 1>(p)) == Status::Ok);
          if (automatic) held = std::clamp(held, p.out_min, p.out_max);
        } else if (call == "SetSampleTime") {
          h = claw_test::to_double(event["ms"]) / 1000.0;  // the period of the next updates
        } else if (call == "SetMode") {
          const bool to_automatic = event["mode"] == "AUTOMATIC";
          if (to_automatic && !automatic)
            REQUIRE(pid.reset(V1(input), V1(std::clamp(held, p.out_min, p.out_max))) == Status::Ok);
          automatic = to_automatic;
        } else if (call == "Output") {
          held = claw_test::to_double(event["value"]);
        } else {
          REQUIRE(call == "Setpoint");  // the step's own setpoint field carries it
        }
      }
      if (step["computed"].get<bool>()) {
        REQUIRE(automatic);
        V1 out;
        REQUIRE(pid.update(V1(claw_test::to_double(step["setpoint"])), V1(input), V1(0.0), h,
                           out) == Status::Ok);
        held = out(0);
      }
      const double expected = claw_test::to_double(step["output"]);
      INFO("claw " << held << ", PID_v1 " << expected);
      CHECK(close(held, expected));
      ++checked_steps;
    }
  }
  REQUIRE(checked_steps > 0);
}
