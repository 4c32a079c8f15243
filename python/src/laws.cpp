// python/src/laws.cpp: claw.Pid (with the named presets), claw.StablePd, claw.VelocityServo and
// the enums of their settings. Settings are keyword arguments (see each class's help); a vector
// setting takes a float (every joint) or a float64 array of N entries.
#include <claw/laws/pid.hpp>
#include <claw/laws/pid_presets.hpp>
#include <claw/laws/stable_pd.hpp>
#include <claw/laws/velocity_servo.hpp>

#include "settings.hpp"
#include "snapshot.hpp"

namespace claw_python {

namespace {

using Pid = claw::PidXd;
using PidSettings = Pid::Settings;
using StablePd = claw::StablePd<double, Eigen::Dynamic>;
using VelocityServo = claw::VelocityServo<double, Eigen::Dynamic>;

const Field<PidSettings> kPidFields[] = {
    CLAW_PYTHON_VECTOR(PidSettings, kp),
    CLAW_PYTHON_VECTOR(PidSettings, ki),
    CLAW_PYTHON_VECTOR(PidSettings, kd),
    CLAW_PYTHON_VALUE(PidSettings, signed_gains),
    CLAW_PYTHON_VECTOR(PidSettings, constant_effort),
    CLAW_PYTHON_VALUE(PidSettings, derivative),
    CLAW_PYTHON_VALUE(PidSettings, derivative_from_zero_error),
    CLAW_PYTHON_VECTOR(PidSettings, derivative_filter),
    CLAW_PYTHON_VECTOR(PidSettings, error_deadband),
    CLAW_PYTHON_VALUE(PidSettings, integral_rule),
    CLAW_PYTHON_VALUE(PidSettings, anti_windup),
    CLAW_PYTHON_VECTOR(PidSettings, integral_max),
    CLAW_PYTHON_VECTOR(PidSettings, iterm_min),
    CLAW_PYTHON_VECTOR(PidSettings, iterm_max),
    CLAW_PYTHON_VECTOR(PidSettings, tracking_time),
    CLAW_PYTHON_VALUE(PidSettings, proportional_on_measurement),
    CLAW_PYTHON_VECTOR(PidSettings, slew_rate),
    CLAW_PYTHON_VALUE(PidSettings, slew_start),
    CLAW_PYTHON_VECTOR(PidSettings, wrap_period),
    CLAW_PYTHON_VECTOR(PidSettings, target_min),
    CLAW_PYTHON_VECTOR(PidSettings, target_max),
    CLAW_PYTHON_VECTOR(PidSettings, target_velocity_min),
    CLAW_PYTHON_VECTOR(PidSettings, target_velocity_max),
    CLAW_PYTHON_VECTOR(PidSettings, feedforward_min),
    CLAW_PYTHON_VECTOR(PidSettings, feedforward_max),
    CLAW_PYTHON_VALUE(PidSettings, dt),
    CLAW_PYTHON_LIMIT_FIELDS(PidSettings),
};

/// Runs f with the GIL released for batches of kReleaseGilFrom joints or more.
template <typename F>
claw::Status maybe_release(Eigen::Index n, F&& f) {
  if (n < kReleaseGilFrom) return f();
  py::gil_scoped_release release;
  return f();
}

std::unique_ptr<Pid> make_pid(Eigen::Index n, const PidSettings& settings, const char* where) {
  if (n < 1) throw py::value_error(std::string(where) + ": n must be >= 1");
  auto pid = std::make_unique<Pid>(n);
  require_ok(pid->configure(settings), where);
  return pid;
}

template <typename Preset, std::size_t K>
Preset preset_from(const py::kwargs& kwargs, const char* where, const Field<Preset> (&fields)[K]) {
  Preset p;
  apply_fields(p, kwargs, 1, where, fields);
  return p;
}

using MujocoPlugin = claw::presets::MujocoPluginPid<double>;
const Field<MujocoPlugin> kMujocoPluginFields[] = {
    CLAW_PYTHON_VALUE(MujocoPlugin, kp),        CLAW_PYTHON_VALUE(MujocoPlugin, ki),
    CLAW_PYTHON_VALUE(MujocoPlugin, kd),        CLAW_PYTHON_VALUE(MujocoPlugin, imax),
    CLAW_PYTHON_VALUE(MujocoPlugin, slewmax),   CLAW_PYTHON_VALUE(MujocoPlugin, ctrl_min),
    CLAW_PYTHON_VALUE(MujocoPlugin, ctrl_max),  CLAW_PYTHON_VALUE(MujocoPlugin, force_min),
    CLAW_PYTHON_VALUE(MujocoPlugin, force_max), CLAW_PYTHON_VALUE(MujocoPlugin, timestep)};
using MujocoNative = claw::presets::MujocoNativePid<double>;
const Field<MujocoNative> kMujocoNativeFields[] = {
    CLAW_PYTHON_VALUE(MujocoNative, kp),        CLAW_PYTHON_VALUE(MujocoNative, ki),
    CLAW_PYTHON_VALUE(MujocoNative, kv),        CLAW_PYTHON_VALUE(MujocoNative, imax),
    CLAW_PYTHON_VALUE(MujocoNative, slewmax),   CLAW_PYTHON_VALUE(MujocoNative, pos_min),
    CLAW_PYTHON_VALUE(MujocoNative, pos_max),   CLAW_PYTHON_VALUE(MujocoNative, vel_min),
    CLAW_PYTHON_VALUE(MujocoNative, vel_max),   CLAW_PYTHON_VALUE(MujocoNative, ff_min),
    CLAW_PYTHON_VALUE(MujocoNative, ff_max),    CLAW_PYTHON_VALUE(MujocoNative, force_min),
    CLAW_PYTHON_VALUE(MujocoNative, force_max), CLAW_PYTHON_VALUE(MujocoNative, actearly),
    CLAW_PYTHON_VALUE(MujocoNative, timestep)};
using Newton = claw::presets::NewtonDrivePid<double>;
const Field<Newton> kNewtonFields[] = {
    CLAW_PYTHON_VALUE(Newton, kp),           CLAW_PYTHON_VALUE(Newton, ki),
    CLAW_PYTHON_VALUE(Newton, kd),           CLAW_PYTHON_VALUE(Newton, integral_max),
    CLAW_PYTHON_VALUE(Newton, effort_limit), CLAW_PYTHON_VALUE(Newton, dt)};
using Toolbox = claw::presets::ControlToolboxPid<double>;
const Field<Toolbox> kToolboxFields[] = {CLAW_PYTHON_VALUE(Toolbox, p),
                                         CLAW_PYTHON_VALUE(Toolbox, i),
                                         CLAW_PYTHON_VALUE(Toolbox, d),
                                         CLAW_PYTHON_VALUE(Toolbox, i_min),
                                         CLAW_PYTHON_VALUE(Toolbox, i_max),
                                         CLAW_PYTHON_VALUE(Toolbox, u_min),
                                         CLAW_PYTHON_VALUE(Toolbox, u_max),
                                         CLAW_PYTHON_VALUE(Toolbox, strategy),
                                         CLAW_PYTHON_VALUE(Toolbox, legacy_antiwindup),
                                         CLAW_PYTHON_VALUE(Toolbox, tracking_time),
                                         CLAW_PYTHON_VALUE(Toolbox, error_deadband),
                                         CLAW_PYTHON_VALUE(Toolbox, dt)};
using Arduino = claw::presets::ArduinoPid<double>;
const Field<Arduino> kArduinoFields[] = {
    CLAW_PYTHON_VALUE(Arduino, kp),      CLAW_PYTHON_VALUE(Arduino, ki),
    CLAW_PYTHON_VALUE(Arduino, kd),      CLAW_PYTHON_VALUE(Arduino, out_min),
    CLAW_PYTHON_VALUE(Arduino, out_max), CLAW_PYTHON_VALUE(Arduino, proportional_on_measurement),
    CLAW_PYTHON_VALUE(Arduino, reverse), CLAW_PYTHON_VALUE(Arduino, sample_time)};

using StableSettings = StablePd::Settings;
const Field<StableSettings> kStableFields[] = {
    CLAW_PYTHON_VECTOR(StableSettings, kp), CLAW_PYTHON_VECTOR(StableSettings, kd),
    CLAW_PYTHON_VECTOR(StableSettings, constant_effort), CLAW_PYTHON_VALUE(StableSettings, dt),
    CLAW_PYTHON_LIMIT_FIELDS(StableSettings)};

using ServoSettings = VelocityServo::Settings;
const Field<ServoSettings> kServoFields[] = {CLAW_PYTHON_VECTOR(ServoSettings, kp),
                                             CLAW_PYTHON_VECTOR(ServoSettings, ki),
                                             CLAW_PYTHON_VECTOR(ServoSettings, kd),
                                             CLAW_PYTHON_VECTOR(ServoSettings, velocity_limit),
                                             CLAW_PYTHON_VECTOR(ServoSettings, max_effort),
                                             CLAW_PYTHON_VALUE(ServoSettings, dt)};

template <typename S, std::size_t K>
std::string field_list(const Field<S> (&fields)[K]) {
  std::string out;
  for (const Field<S>& f : fields) out += std::string(out.empty() ? "" : ", ") + f.name;
  return out;
}

}  // namespace

void bind_laws(py::module_& m) {
  py::enum_<claw::DerivativeSource>(m, "DerivativeSource", "What a PID's derivative term d is.")
      .value("VelocityError", claw::DerivativeSource::VelocityError,
             "d = v* - v (MuJoCo, Newton, Drake)")
      .value("ErrorDifference", claw::DerivativeSource::ErrorDifference,
             "d = (e - e_prev) / h (CoppeliaSim, control_toolbox)")
      .value("Measurement", claw::DerivativeSource::Measurement, "d = -(q - q_prev) / h (no kick)");
  py::enum_<claw::IntegralRule>(m, "IntegralRule", "When the integral enters the output.")
      .value("BackwardEuler", claw::IntegralRule::BackwardEuler, "I+ = I + ki h e, u uses I+")
      .value("ForwardEuler", claw::IntegralRule::ForwardEuler, "u uses I, then I advances");
  py::enum_<claw::AntiWindup>(m, "AntiWindup", "How the integral term is kept from winding up.")
      .value("None_", claw::AntiWindup::None, "I integrates freely")
      .value("IntegralClamp", claw::AntiWindup::IntegralClamp, "z within +-integral_max [pos s]")
      .value("ITermClamp", claw::AntiWindup::ITermClamp, "I within [iterm_min, iterm_max] [effort]")
      .value("StopAtLimit", claw::AntiWindup::StopAtLimit,
             "MuJoCo native: stop at |z| >= integral_max")
      .value("Conditional", claw::AntiWindup::Conditional, "freeze while saturated and pushing")
      .value("BackCalculation", claw::AntiWindup::BackCalculation, "I += h (ki e + (u_sat - u)/Tt)")
      .value("ITermClampInOutput", claw::AntiWindup::ITermClampInOutput,
             "I free; the output uses clip(I, iterm_min, iterm_max)");
  py::enum_<claw::SlewStart>(m, "SlewStart", "Where the setpoint slew limiter starts.")
      .value("FromMeasurement", claw::SlewStart::FromMeasurement, "s = q on the first step")
      .value("FromZero", claw::SlewStart::FromZero, "s = 0 (MuJoCo native)")
      .value("PassFirst", claw::SlewStart::PassFirst, "first step not limited (MuJoCo plugin)");
  py::enum_<claw::EffortLimitKind>(m, "EffortLimitKind", "Which envelope bounds the effort.")
      .value("None_", claw::EffortLimitKind::None, "no limit")
      .value("Bounds", claw::EffortLimitKind::Bounds, "u in [effort_lower, effort_upper]")
      .value("DcMotor", claw::EffortLimitKind::DcMotor,
             "DC-motor torque-speed curve (stall_effort, peak_effort, no_load_speed)");
  py::enum_<claw::presets::ControlToolboxStrategy>(m, "ControlToolboxStrategy",
                                                   "control_toolbox's anti-windup strategies.")
      .value("None_", claw::presets::ControlToolboxStrategy::None)
      .value("BackCalculation", claw::presets::ControlToolboxStrategy::BackCalculation)
      .value("ConditionalIntegration",
             claw::presets::ControlToolboxStrategy::ConditionalIntegration)
      .value("Legacy", claw::presets::ControlToolboxStrategy::Legacy);

  const std::string pid_doc =
      "Pid(n, **settings): the parallel PID law for n joints,\n"
      "  u = c + ff + kp e + I + kd d, then the effort limits, with e = q* - q.\n"
      "Settings (keywords; vectors take a float or N float64 values): kp [effort/pos], ki\n"
      "[effort/(pos s)], kd [effort s/pos], constant_effort c [effort], dt h [s]; derivative\n"
      "(DerivativeSource), derivative_filter N [1/s], integral_rule (IntegralRule), anti_windup\n"
      "(AntiWindup) with integral_max [pos s], iterm_min/iterm_max [effort], tracking_time [s];\n"
      "slew_rate [pos/s], slew_start; wrap_period [rad] (continuous joints); target_min/max,\n"
      "target_velocity_min/max, feedforward_min/max; effort_limit (symmetric) or effort_lower /\n"
      "effort_upper [effort], or effort_limit_kind=EffortLimitKind.DcMotor with stall_effort,\n"
      "peak_effort [effort] and no_load_speed [pos/s].\n"
      "All keywords: " +
      field_list(kPidFields) +
      ".\n"
      "Presets: Pid.mujoco_plugin, Pid.mujoco_native, Pid.newton, Pid.control_toolbox, Pid.drake,\n"
      "Pid.arduino. Invalid settings raise ValueError in the constructor; configure() returns the\n"
      "Status and keeps the old settings.";
  py::class_<claw::PidState<double>>(
      m, "PidState",
      "An opaque snapshot of a Pid's (or VelocityServo's) state: state() makes one, set_state()\n"
      "restores it.");
  py::class_<Pid>(m, "Pid", pid_doc.c_str())
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             PidSettings s;
             s.resize(n);
             apply_fields(s, kwargs, n, "Pid", kPidFields);
             return make_pid(n, s, "Pid");
           }),
           py::arg("n"))
      .def_static(
          "mujoco_plugin",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.mujoco_plugin", kMujocoPluginFields);
            return make_pid(n, claw::presets::mujoco_plugin<double>(n, p), "Pid.mujoco_plugin");
          },
          py::arg("n"),
          ("MuJoCo's mujoco.pid actuator plugin: force = kp e - kd v + ki z+, z clamped to\n"
           "+-imax/ki, setpoint slew-limited except at t = 0, ctrlrange and forcerange. "
           "Keywords: " +
           field_list(kMujocoPluginFields) + " (absent: unbounded). Call update(ctrl, q, v, out).")
              .c_str())
      .def_static(
          "mujoco_native",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.mujoco_native", kMujocoNativeFields);
            return make_pid(n, claw::presets::mujoco_native<double>(n, p), "Pid.mujoco_native");
          },
          py::arg("n"),
          ("MuJoCo's native <pid> actuator (integral from before the step unless actearly; stops\n"
           "integrating at |z| >= imax [pos s]). Keywords: " +
           field_list(kMujocoNativeFields) +
           ". Call update(pos, q, v, out, target_velocity=vel, feedforward=ff).")
              .c_str())
      .def_static(
          "newton",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.newton", kNewtonFields);
            return make_pid(n, claw::presets::newton_drive_pid<double>(n, p), "Pid.newton");
          },
          py::arg("n"),
          ("Newton's DrivePID: u = kp e + ki z + kd (v* - v), z clamped to +-integral_max [pos "
           "s],\n"
           "|u| <= effort_limit. Keywords: " +
           field_list(kNewtonFields) + ".")
              .c_str())
      .def_static(
          "control_toolbox",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.control_toolbox", kToolboxFields);
            return make_pid(n, claw::presets::control_toolbox<double>(n, p), "Pid.control_toolbox");
          },
          py::arg("n"),
          ("ros-controls control_toolbox's Pid, current version (d = (e - e_prev)/h, strategies\n"
           "None / BackCalculation / ConditionalIntegration / Legacy, I-term clamped after every\n"
           "strategy). Keywords: " +
           field_list(kToolboxFields) + ".")
              .c_str())
      .def_static(
          "control_toolbox_legacy",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.control_toolbox_legacy", kToolboxFields);
            return make_pid(n, claw::presets::control_toolbox_legacy<double>(n, p),
                            "Pid.control_toolbox_legacy");
          },
          py::arg("n"),
          ("control_toolbox <= 5.5: as control_toolbox, with i_min/i_max bounding only the\n"
           "Legacy strategy. Keywords: " +
           field_list(kToolboxFields) + ".")
              .c_str())
      .def_static(
          "drake",
          [](Eigen::Index n, double kp, double ki, double kd, double dt) {
            const claw::presets::DrakePid<double> gains{kp, ki, kd, dt};
            return make_pid(n, claw::presets::drake<double>(n, gains), "Pid.drake");
          },
          py::arg("n"), py::arg("kp"), py::arg("ki"), py::arg("kd"), py::arg("dt"),
          "Drake's PidController sampled at dt [s]: u = kp e + ki z + kd (v* - v), z advanced "
          "after\n"
          "the output, no limits.")
      .def_static(
          "arduino",
          [](Eigen::Index n, const py::kwargs& kw) {
            const auto p = preset_from(kw, "Pid.arduino", kArduinoFields);
            return make_pid(n, claw::presets::arduino<double>(n, p), "Pid.arduino");
          },
          py::arg("n"),
          ("Arduino PID_v1 (derivative on measurement, output sum clamped to [out_min, out_max]).\n"
           "Keywords: " +
           field_list(kArduinoFields) + ".")
              .c_str())
      .def_property_readonly("n", &Pid::size, "Number of joints.")
      .def(
          "configure",
          [](Pid& self, const py::kwargs& kwargs) {
            PidSettings s = self.settings();
            apply_fields(s, kwargs, self.size(), "Pid.configure", kPidFields);
            return self.configure(s);
          },
          "Changes the given settings (same keywords as the constructor); returns the Status and\n"
          "keeps every old setting when it is not Ok.")
      .def(
          "update",
          [](Pid& self, py::handle target, py::handle q, py::handle v, py::handle out,
             py::handle target_velocity, py::handle feedforward, py::handle period) {
            const char* w = "Pid.update";
            const bool per_call = !period.is_none();
            const double h = per_call ? period.cast<double>() : 0.0;
            const Eigen::Index n = self.size();
            auto t = vector_in(target, w, "target", n);
            auto qm = vector_in(q, w, "q", n);
            auto vm = vector_in(v, w, "v", n);
            auto o = vector_out(out, w, "out", n);
            if (target_velocity.is_none() && feedforward.is_none())
              return maybe_release(n, [&] {
                return per_call ? self.update(t, qm, vm, h, o) : self.update(t, qm, vm, o);
              });
            const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
            const auto tv = vector_or(target_velocity, zero, w, "target_velocity", n);
            const auto ff = vector_or(feedforward, zero, w, "feedforward", n);
            return maybe_release(n, [&] {
              return per_call ? self.update(t, tv, ff, qm, vm, h, o)
                              : self.update(t, tv, ff, qm, vm, o);
            });
          },
          py::arg("target"), py::arg("q"), py::arg("v"), py::arg("out"), py::kw_only(),
          py::arg("target_velocity") = py::none(), py::arg("feedforward") = py::none(),
          py::arg("h") = py::none(),
          "One control period: out [effort] = PID(target q* [pos], q [pos], v [pos/s]) with the\n"
          "target velocity v* [pos/s] and feedforward ff [effort] (0 when not given). All (N,)\n"
          "float64; out written in place. h: this period [s] (default: the settings' dt).\n"
          "Returns Status (NonFiniteInput: nothing touched).")
      .def(
          "reset", [](Pid& self) { self.reset(); },
          "Restart: integral 0, filter 0, the next step is a first step.")
      .def(
          "reset_joints",
          [](Pid& self, py::handle selected) {
            return self.reset_joints(mask_in(selected, "Pid.reset_joints", self.size()));
          },
          py::arg("selected"),
          "Restarts the joints where `selected` (N,) is true as reset() restarts all; the others\n"
          "are not touched. Returns Status.")
      .def(
          "reset_bumpless",
          [](Pid& self, py::handle measurement, py::handle output) {
            return self.reset(
                vector_in(measurement, "Pid.reset_bumpless", "measurement", self.size()),
                vector_in(output, "Pid.reset_bumpless", "output", self.size()));
          },
          py::arg("measurement"), py::arg("output"),
          "Bumpless restart: a zero error then gives `output` [effort]; returns Status.")
      .def(
          "set_gains",
          [](Pid& self, py::handle kp, py::handle ki, py::handle kd) {
            const Eigen::Index n = self.size();
            return self.set_gains(vector_or_scalar(kp, "Pid.set_gains", "kp", n),
                                  vector_or_scalar(ki, "Pid.set_gains", "ki", n),
                                  vector_or_scalar(kd, "Pid.set_gains", "kd", n));
          },
          py::arg("kp"), py::arg("ki"), py::arg("kd"),
          "Bumpless, real-time-safe gain change; returns Status (old gains kept unless Ok).")
      .def_property_readonly(
          "integral_term", [](const Pid& self) { return to_numpy(self.integral_term()); },
          "Integral term I [effort] per joint (a copy).")
      .def_property_readonly(
          "error_integral",
          [](const Pid& self) {
            Eigen::VectorXd z(self.size());
            for (Eigen::Index j = 0; j < self.size(); ++j) z(j) = self.error_integral(j);
            return to_numpy(z);
          },
          "Error integral z = I / ki [pos s] per joint (0 where ki = 0): MuJoCo's act state.")
      .def_property_readonly(
          "slew_state", [](const Pid& self) { return to_numpy(self.slew_state()); },
          "The slew limiter's state s [pos] per joint (a copy).");

  py::class_<StablePd>(
      m, "StablePd",
      ("StablePd(n, **settings): implicit (stable) PD of Tan et al. 2011 for n joints,\n"
       "  (I + h (h Kp + Kd) A) tau = c + ff + Kp (q* - q - h v) + Kd (v* - v),\n"
       "A the inverse mass (diagonal (N,) or matrix (N, N)), then the effort limits.\n"
       "Keywords: " +
       field_list(kStableFields) + "; kp [effort/pos], kd [effort s/pos], dt h [s].")
          .c_str())
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             if (n < 0) throw py::value_error("StablePd: n must be >= 0");
             auto pd = std::make_unique<StablePd>(n);
             StableSettings s = pd->settings();
             apply_fields(s, kwargs, n, "StablePd", kStableFields);
             require_ok(pd->configure(s), "StablePd");
             return pd;
           }),
           py::arg("n"))
      .def_property_readonly("n", &StablePd::size, "Number of joints.")
      .def(
          "configure",
          [](StablePd& self, const py::kwargs& kwargs) {
            StableSettings s = self.settings();
            apply_fields(s, kwargs, self.size(), "StablePd.configure", kStableFields);
            return self.configure(s);
          },
          "Changes the given settings; returns Status, old settings kept unless Ok.")
      .def(
          "update",
          [](StablePd& self, py::handle target, py::handle target_velocity, py::handle feedforward,
             py::handle q, py::handle v, py::handle inverse_mass, py::handle out) {
            const char* w = "StablePd.update";
            const Eigen::Index n = self.size();
            auto t = vector_in(target, w, "target", n);
            auto tv = vector_in(target_velocity, w, "target_velocity", n);
            auto ff = vector_in(feedforward, w, "feedforward", n);
            auto qm = vector_in(q, w, "q", n);
            auto vm = vector_in(v, w, "v", n);
            auto o = vector_out(out, w, "out", n);
            if (py::isinstance<py::array>(inverse_mass) &&
                py::reinterpret_borrow<py::array>(inverse_mass).ndim() == 2)
              return self.update_full(t, tv, ff, qm, vm,
                                      matrix_in(inverse_mass, w, "inverse_mass", n, n), o);
            auto a = vector_in(inverse_mass, w, "inverse_mass", n);
            return maybe_release(n, [&] { return self.update(t, tv, ff, qm, vm, a, o); });
          },
          py::arg("target"), py::arg("target_velocity"), py::arg("feedforward"), py::arg("q"),
          py::arg("v"), py::arg("inverse_mass"), py::arg("out"),
          "One step: out [effort] from q* [pos], v* [pos/s], ff [effort], q, v and the inverse\n"
          "mass (N,) diagonal or (N, N) matrix [1/(kg m^2) or 1/kg]. Returns Status.");

  py::class_<VelocityServo>(
      m, "VelocityServo",
      ("VelocityServo(n, **settings): CoppeliaSim's default joint position loop for n joints,\n"
       "  ctrl = P e + I sum(e h) + D (e - e_prev) / h (no D on the first call),\n"
       "  target velocity = clip(ctrl / h, -velocity_limit, velocity_limit), effort limit = "
       "max_effort.\n"
       "Keywords: " +
       field_list(kServoFields) +
       "; kp [1], ki [1/s], kd [s], velocity_limit [pos/s], max_effort [effort], dt h [s].")
          .c_str())
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             if (n < 0) throw py::value_error("VelocityServo: n must be >= 0");
             auto servo = std::make_unique<VelocityServo>(n);
             ServoSettings s = servo->settings();
             apply_fields(s, kwargs, n, "VelocityServo", kServoFields);
             require_ok(servo->configure(s), "VelocityServo");
             return servo;
           }),
           py::arg("n"))
      .def_static(
          "coppeliasim",
          [](Eigen::Index n, double kp, double ki, double kd, double velocity_limit,
             double max_force, double dt) {
            auto servo = std::make_unique<VelocityServo>(n);
            const claw::presets::CoppeliaSimJoint<double> joint{kp,        ki, kd, velocity_limit,
                                                                max_force, dt};
            require_ok(servo->configure(claw::presets::coppeliasim_joint<double>(n, joint)),
                       "VelocityServo.coppeliasim");
            return servo;
          },
          py::arg("n"), py::arg("kp"), py::arg("ki"), py::arg("kd"), py::arg("velocity_limit"),
          py::arg("max_force"), py::arg("dt"),
          "CoppeliaSim's joint callback preset (PID_P, PID_I, PID_D, velUpperLimit, maxForce,\n"
          "dynStepSize).")
      .def_property_readonly("n", &VelocityServo::size, "Number of joints.")
      .def(
          "update",
          [](VelocityServo& self, py::handle error, py::handle target_velocity,
             py::handle effort_limit) {
            const char* w = "VelocityServo.update";
            const Eigen::Index n = self.size();
            auto e = vector_in(error, w, "error", n);
            auto tv = vector_out(target_velocity, w, "target_velocity", n);
            auto lim = vector_out(effort_limit, w, "effort_limit", n);
            return maybe_release(n, [&] { return self.update(e, tv, lim); });
          },
          py::arg("error"), py::arg("target_velocity"), py::arg("effort_limit"),
          "One physics step from the position error e = q* - q [pos]: writes target_velocity\n"
          "[pos/s] and effort_limit [effort] in place. Returns Status.")
      .def("reset", &VelocityServo::reset, "Forgets the error history and sum.")
      .def(
          "set_gains",
          [](VelocityServo& self, py::handle kp, py::handle ki, py::handle kd) {
            const Eigen::Index n = self.size();
            return self.set_gains(vector_or_scalar(kp, "VelocityServo.set_gains", "kp", n),
                                  vector_or_scalar(ki, "VelocityServo.set_gains", "ki", n),
                                  vector_or_scalar(kd, "VelocityServo.set_gains", "kd", n));
          },
          py::arg("kp"), py::arg("ki"), py::arg("kd"),
          "Real-time-safe gain change; where I becomes 0 the error sum is reset. Returns Status.");
  auto pid_class = py::reinterpret_borrow<py::class_<Pid>>(m.attr("Pid"));
  bind_snapshot(pid_class);
  auto stable_class = py::reinterpret_borrow<py::class_<StablePd>>(m.attr("StablePd"));
  bind_snapshot(stable_class);
  auto servo_class = py::reinterpret_borrow<py::class_<VelocityServo>>(m.attr("VelocityServo"));
  bind_snapshot(servo_class);
}

}  // namespace claw_python
