// tests/test_pid_control_toolbox.cpp: the control_toolbox presets against control_toolbox's own PID
// unit tests (reference family control_toolbox): each case's calls in order, each version's cases
// through the preset of that version (control_toolbox <= 5.5: control_toolbox_legacy).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include "claw/laws/pid_presets.hpp"
#include "support/reference.hpp"

using claw::Status;

namespace {

using Pid1 = claw::Pid<double, 1>;
using V1 = Eigen::Matrix<double, 1, 1>;
using Toolbox = claw::presets::ControlToolboxPid<double>;
using Strategy = claw::presets::ControlToolboxStrategy;

// The version a case reproduces, from its source's release tag (or the tag nearest to its commit):
// "5.5.0 (...)" -> 5.5. The legacy semantics are those of 5.5 and earlier.
bool legacy_version(const nlohmann::json& source) {
  const std::string tag = source.contains("tag") ? source["tag"].get<std::string>()
                                                 : source["tag_nearest"].get<std::string>();
  int major = 0, minor = 0;
  REQUIRE(std::sscanf(tag.c_str(), "%d.%d", &major, &minor) == 2);
  return major < 5 || (major == 5 && minor <= 5);
}

// An input of a step: a number, or "nan" (the file's NaN inputs; reference.hpp takes no NaN).
double input(const nlohmann::json& value) {
  if (value.is_string() && value.get<std::string>() == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return claw_test::to_double(value);
}

Toolbox toolbox_parameters(const nlohmann::json& pid, double dt) {
  Toolbox p;
  p.p = claw_test::to_double(pid["p"]);
  p.i = claw_test::to_double(pid["i"]);
  p.d = claw_test::to_double(pid["d"]);
  p.u_min = claw_test::to_double(pid["u_min"]);
  p.u_max = claw_test::to_double(pid["u_max"]);
  p.i_min = claw_test::to_double(pid["i_min"]);
  p.i_max = claw_test::to_double(pid["i_max"]);
  p.tracking_time = claw_test::to_double(pid["tracking_time_constant"]);
  if (pid.contains("error_deadband"))
    p.error_deadband = claw_test::to_double(pid["error_deadband"]);
  const std::string strategy = pid["strategy"].get<std::string>();
  if (strategy == "NONE") {
    p.strategy = Strategy::None;
  } else if (strategy == "BACK_CALCULATION") {
    p.strategy = Strategy::BackCalculation;
  } else if (strategy == "CONDITIONAL_INTEGRATION") {
    p.strategy = Strategy::ConditionalIntegration;
  } else {
    REQUIRE(strategy == "LEGACY");
    p.strategy = Strategy::Legacy;
    p.legacy_antiwindup = pid["legacy_antiwindup"].get<bool>();
  }
  p.dt = dt;
  return p;
}

// The differences of claw's semantics the cases may meet, each counted where it is met:
// - NonFiniteInput: for a NaN error or error_dot control_toolbox returns NaN (and keeps returning
//   it on a zero dt); claw refuses the input and keeps the last command, so no NaN reaches an
//   actuator. The integral stays unchanged in both, which is checked.
// - NoTrackingTime: with i = 0 control_toolbox reports the tracking time constant as 0 where claw's
//   effective Tt is +inf; both mean no back-calculation correction (the case's steps check it).
// - HistoryAfterErrorDot: compute(error, error_dot, dt) keeps control_toolbox's last error for the
//   next compute(error, dt); claw's derivative history is the error of every step.
struct Differences {
  int non_finite_input = 0;
  int no_tracking_time = 0;
  int history_after_error_dot = 0;
};

class Harness {
 public:
  Harness(const nlohmann::json& test_case, Differences& differences)
      : legacy_(legacy_version(test_case["source"])),
        pid_json_(test_case["pid"]),
        differences_(differences) {}

  claw::PidSettings<double, 1> settings(const nlohmann::json& pid, double dt,
                                        bool error_dot) const {
    const Toolbox p = toolbox_parameters(pid, dt);
    auto s = legacy_ ? claw::presets::control_toolbox_legacy<double, 1>(p)
                     : claw::presets::control_toolbox<double, 1>(p);
    // compute(error, error_dot, dt): the caller's derivative is d = v* - v with v* = error_dot.
    if (error_dot) s.derivative = claw::DerivativeSource::VelocityError;
    return s;
  }

  // Every op of the case in order; returns the number of checks made.
  int run(const nlohmann::json& ops) {
    int checks = 0;
    bool constructed = false;
    for (const auto& op : ops) {
      const std::string name = op["op"].get<std::string>();
      INFO("op " << op.dump());
      if (name == "construct_expect_throw") {
        // The constructor throws on u_min > u_max or i_min > i_max: configure refuses them.
        REQUIRE(pid_.configure(settings(pid_json_, 1.0, false)) == Status::InvalidParameter);
        ++checks;
        continue;
      }
      if (!constructed) {
        REQUIRE(pid_.configure(settings(pid_json_, 1.0, false)) == Status::Ok);
        constructed = true;
      }
      checks += apply(name, op);
    }
    return checks;
  }

 private:
  int apply(const std::string& name, const nlohmann::json& op) {
    if (name == "set_gains_expect_rejected" || name == "set_gains_expect_accepted") {
      const auto before = pid_.settings();
      const Status status = pid_.configure(settings(op["pid"], before.dt, error_dot_));
      if (name == "set_gains_expect_accepted") {
        REQUIRE(status == Status::Ok);
        pid_json_ = op["pid"];
      } else {
        REQUIRE(status == Status::InvalidParameter);
        CHECK(pid_.settings().limits.lower(0) == before.limits.lower(0));
        CHECK(pid_.settings().iterm_min(0) == before.iterm_min(0));
      }
      return 1;
    }
    if (name == "compute" || name == "compute_dot" || name == "compute_save") return compute(op);
    if (name == "compute_dt_zero") {
      const double integral = pid_.integral_term()(0);
      REQUIRE(step(op, 0.0) == Status::Ok);
      CHECK(command_(0) == claw_test::to_double(op["expect_cmd"]));
      CHECK(pid_.integral_term()(0) == integral);
      return 2;
    }
    if (name == "compute_dt_negative_expect_throw") {
      const double integral = pid_.integral_term()(0);
      REQUIRE(step(op, claw_test::to_double(op["dt"])) == Status::NegativeTimeStep);
      CHECK(pid_.integral_term()(0) == integral);
      return 2;
    }
    if (name == "compute_nan") {
      const double integral = pid_.integral_term()(0);
      const double held = command_(0);
      REQUIRE(op["expect_cmd_nonfinite"].get<bool>());
      REQUIRE(step(op, claw_test::to_double(op["dt"])) == Status::NonFiniteInput);
      ++differences_.non_finite_input;
      CHECK(command_(0) == held);
      if (op.value("expect_ie_unchanged", false)) CHECK(pid_.integral_term()(0) == integral);
      return 2;
    }
    if (name == "reset") {
      // reset(save_i_term): errors and the command to 0; the I-term kept when asked.
      const V1 integral = pid_.integral_term();
      pid_.reset();
      if (op["save_i_term"].get<bool>()) REQUIRE(pid_.set_integral_term(integral) == Status::Ok);
      command_.setZero();
      last_error_ = last_error_dot_step_error_ = 0.0;  // both start the derivative from e_prev = 0
      return 0;
    }
    if (name == "expect_ie") {
      CHECK(pid_.integral_term()(0) == claw_test::to_double(op["value"]));
      return 1;
    }
    if (name == "set_current_cmd") {
      command_(0) = claw_test::to_double(op["value"]);  // the command is the caller's vector
      return 0;
    }
    if (name == "copy_expect_errors_zero") {
      // control_toolbox's copy starts with the gains and no history; in claw that is a new Pid
      // given the settings (a claw copy copies the state too).
      Pid1 fresh;
      REQUIRE(fresh.configure(pid_.settings()) == Status::Ok);
      CHECK(fresh.integral_term()(0) == 0.0);
      CHECK(fresh.next_step_is_first());
      return 2;
    }
    if (name == "expect_tracking_time_constant") {
      const auto& s = pid_.settings();
      const double tt = s.tracking_time(0) > 0.0
                            ? s.tracking_time(0)
                            : claw::default_tracking_time(s.kp(0), s.ki(0), s.kd(0));
      const double expected = claw_test::to_double(op["value"]);
      if (s.ki(0) == 0.0 && expected == 0.0) {
        CHECK(std::isinf(tt));
        ++differences_.no_tracking_time;
      } else {
        CHECK(tt == expected);
      }
      return 1;
    }
    FAIL("op not in the schema: " << name);
    return 0;
  }

  Status step(const nlohmann::json& op, double dt) {
    const bool error_dot = op.contains("error_dot");
    if (error_dot != error_dot_) {
      history_differs_ = !error_dot && last_error_dot_step_error_ != last_error_;
      if (history_differs_) ++differences_.history_after_error_dot;
      error_dot_ = error_dot;
      REQUIRE(pid_.configure(settings(pid_json_, pid_.settings().dt, error_dot_)) == Status::Ok);
    }
    // e = q* - q with q = 0 is the error exactly; the derivative source takes error_dot as v*.
    const V1 error(input(op["error"]));
    const V1 zero(0.0);
    if (!error_dot) return pid_.update(error, zero, zero, dt, command_);
    const V1 rate(input(op["error_dot"]));
    return pid_.update(error, rate, zero, zero, zero, dt, command_);
  }

  int compute(const nlohmann::json& op) {
    history_differs_ = false;
    REQUIRE(step(op, claw_test::to_double(op["dt"])) == Status::Ok);
    const double error = claw_test::to_double(op["error"]);
    if (op.contains("error_dot"))
      last_error_dot_step_error_ = error;
    else
      last_error_ = last_error_dot_step_error_ = error;
    const double tol = op.value("tol", 0.0);
    int checks = 0;
    if (op.contains("expect_cmd") && !history_differs_) {
      const double expected = claw_test::to_double(op["expect_cmd"]);
      INFO("claw " << command_(0) << ", control_toolbox " << expected);
      CHECK(std::fabs(command_(0) - expected) <= tol);
      ++checks;
    }
    if (op.contains("expect_ie")) {
      CHECK(std::fabs(pid_.integral_term()(0) - claw_test::to_double(op["expect_ie"])) <= tol);
      ++checks;
    }
    if (op.contains("save_as")) saved_[op["save_as"].get<std::string>()] = command_(0);
    if (op.contains("expect_gt")) {
      CHECK(command_(0) > claw_test::to_double(op["expect_gt"]));
      ++checks;
    }
    if (op.contains("expect_eq_saved")) {
      CHECK(command_(0) == saved_.at(op["expect_eq_saved"].get<std::string>()));
      ++checks;
    }
    return checks;
  }

  bool legacy_;
  nlohmann::json pid_json_;
  Differences& differences_;
  Pid1 pid_;
  V1 command_ = V1::Zero();
  bool error_dot_ = false;
  bool history_differs_ = false;  // this step's derivative history is not control_toolbox's
  double last_error_ = 0.0, last_error_dot_step_error_ = 0.0;
  std::map<std::string, double> saved_;
};

}  // namespace

TEST_CASE("control_toolbox presets reproduce control_toolbox's PID tests, version by version",
          "[conformance][pid][control_toolbox]") {
  const auto file = claw_test::load_reference("control_toolbox", "pid_tests.json");
  const auto& cases = file["cases"];
  REQUIRE(!cases.empty());
  Differences differences;
  int checks = 0, legacy_cases = 0;
  for (const auto& c : cases) {
    INFO(claw_test::case_label("pid_tests.json", c));
    legacy_cases += legacy_version(c["source"]) ? 1 : 0;
    Harness harness(c, differences);
    checks += harness.run(c["ops"]);
  }
  WARN("control_toolbox: " << cases.size() << " cases (" << legacy_cases << " <= 5.5), " << checks
                           << " checks; documented differences: " << differences.non_finite_input
                           << " NaN inputs held, " << differences.no_tracking_time
                           << " tracking time 0 vs +inf, " << differences.history_after_error_dot
                           << " derivative histories after compute with error_dot");
  REQUIRE(checks > 0);
}
