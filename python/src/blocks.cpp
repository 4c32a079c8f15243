// python/src/blocks.cpp: claw.PdController and claw.PdAdapter (gym_jiminy's PD blocks with their
// state), claw.ZohMode, claw.PdActionOrder, and pd_controller_bounds (PDController's derivation).
#include <claw/blocks/pd_adapter.hpp>
#include <claw/blocks/pd_controller.hpp>

#include "settings.hpp"
#include "snapshot.hpp"

namespace claw_python {

namespace {

using Controller = claw::PdControllerXd;
using ControllerSettings = Controller::Settings;
using Adapter = claw::PdAdapterXd;
using AdapterSettings = Adapter::Settings;

void set_lower(ControllerSettings& s, py::handle v, Eigen::Index n, const char* where) {
  s.bounds.lower = matrix_in(v, where, "command_state_lower", 3, n);
}
void set_upper(ControllerSettings& s, py::handle v, Eigen::Index n, const char* where) {
  s.bounds.upper = matrix_in(v, where, "command_state_upper", 3, n);
}

const Field<ControllerSettings> kControllerFields[] = {
    Field<ControllerSettings>{"command_state_lower", &set_lower},
    Field<ControllerSettings>{"command_state_upper", &set_upper},
    CLAW_PYTHON_VECTOR(ControllerSettings, kp),
    CLAW_PYTHON_VECTOR(ControllerSettings, kd),
    CLAW_PYTHON_VECTOR(ControllerSettings, effort_limit),
    CLAW_PYTHON_VALUE(ControllerSettings, control_dt),
    CLAW_PYTHON_VALUE(ControllerSettings, mode)};

const Field<AdapterSettings> kAdapterFields[] = {
    CLAW_PYTHON_VALUE(AdapterSettings, order), CLAW_PYTHON_VALUE(AdapterSettings, instantaneous),
    CLAW_PYTHON_VALUE(AdapterSettings, step_dt),
    Field<AdapterSettings>{"velocity_deadband",
                           [](AdapterSettings& s, py::handle v, Eigen::Index n, const char* w) {
                             if (v.is_none()) {
                               s.use_deadband = false;
                               s.velocity_deadband.setZero(n);
                             } else {
                               s.use_deadband = true;
                               s.velocity_deadband = vector_or_scalar(v, w, "velocity_deadband", n);
                             }
                           }}};

template <typename F>
claw::Status maybe_release(Eigen::Index n, F&& f) {
  if (n < kReleaseGilFrom) return f();
  py::gil_scoped_release release;
  return f();
}

}  // namespace

void bind_blocks(py::module_& m) {
  py::enum_<claw::ZohMode>(m, "ZohMode", "How the ZOH integrator treats the bounds.")
      .value("JiminyCompatible", claw::ZohMode::JiminyCompatible,
             "gym_jiminy 1.8.12's algorithm, bit for bit (does not guarantee the bounds)")
      .value("Viable", claw::ZohMode::Viable,
             "from a viable state the next state is viable: p, v, a within their bounds");
  py::enum_<claw::PdActionOrder>(m, "PdActionOrder", "Which derivative the adapter's action is.")
      .value("Position", claw::PdActionOrder::Position, "action = target position")
      .value("Velocity", claw::PdActionOrder::Velocity, "action = target velocity");

  py::class_<claw::NoState>(m, "NoState",
                            "The empty snapshot of a block that keeps no state between calls.");
  py::class_<Controller>(
      m, "PdController",
      "PdController(n, **settings): gym_jiminy's PD controller block for n joints. It owns the\n"
      "command state S = [p*; v*; a*] (3, N) and every control period h:\n"
      "  a* <- target acceleration; S <- integrate_zoh(S, h);\n"
      "  out = clip(kp ((p* - q) + kd (v* - v)), -effort_limit, effort_limit).\n"
      "Keywords: command_state_lower, command_state_upper ((3, N) float64, +-inf unbounded),\n"
      "kp [effort/pos], kd [s] (time constant; derivative gain kp kd), effort_limit [effort],\n"
      "control_dt h [s], mode (ZohMode). Invalid settings raise ValueError here; configure()\n"
      "returns the Status.")
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             if (n < 0) throw py::value_error("PdController: n must be >= 0");
             auto c = std::make_unique<Controller>(n);
             ControllerSettings s = c->settings();
             apply_fields(s, kwargs, n, "PdController", kControllerFields);
             require_ok(c->configure(s), "PdController");
             return c;
           }),
           py::arg("n"))
      .def_property_readonly("n", &Controller::size, "Number of joints.")
      .def(
          "configure",
          [](Controller& self, const py::kwargs& kwargs) {
            ControllerSettings s = self.settings();
            apply_fields(s, kwargs, self.size(), "PdController.configure", kControllerFields);
            return self.configure(s);
          },
          "Changes the given settings; returns Status (old settings kept unless Ok).")
      .def(
          "update",
          [](Controller& self, py::handle q, py::handle v, py::handle target_acceleration,
             py::handle out) {
            const char* w = "PdController.update";
            const Eigen::Index n = self.size();
            auto qm = vector_in(q, w, "q", n);
            auto vm = vector_in(v, w, "v", n);
            auto a = vector_in(target_acceleration, w, "target_acceleration", n);
            auto o = vector_out(out, w, "out", n);
            return maybe_release(n, [&] { return self.update(qm, vm, a, o); });
          },
          py::arg("q"), py::arg("v"), py::arg("target_acceleration"), py::arg("out"),
          "One control period from q [pos], v [pos/s] and the target acceleration [pos/s^2]:\n"
          "out [effort] written in place. Returns Status (NonFiniteInput: nothing touched).")
      .def(
          "reset",
          [](Controller& self, py::handle q, py::handle v, py::handle out) {
            const char* w = "PdController.reset";
            const Eigen::Index n = self.size();
            return self.reset(vector_in(q, w, "q", n), vector_in(v, w, "v", n),
                              vector_out(out, w, "out", n));
          },
          py::arg("q"), py::arg("v"), py::arg("out"),
          "Bumpless start: p*, v* <- q, v clipped into the bounds, a* <- 0; out gets the PD "
          "effort.")
      .def(
          "reset_joints",
          [](Controller& self, py::handle selected, py::handle q, py::handle v, py::handle out) {
            const char* w = "PdController.reset_joints";
            const Eigen::Index n = self.size();
            return self.reset_joints(mask_in(selected, w, n), vector_in(q, w, "q", n),
                                     vector_in(v, w, "v", n), vector_out(out, w, "out", n));
          },
          py::arg("selected"), py::arg("q"), py::arg("v"), py::arg("out"),
          "reset(q, v, out) for the joints where `selected` (N,) is true; the other joints'\n"
          "state and out entries are not touched. Returns Status.")
      .def(
          "set_command_state",
          [](Controller& self, py::handle state) {
            return self.set_command_state(
                matrix_in(state, "PdController.set_command_state", "state", 3, self.size()));
          },
          py::arg("state"), "Replaces the command state (3, N); returns Status.")
      .def(
          "set_gains",
          [](Controller& self, py::handle kp, py::handle kd) {
            const Eigen::Index n = self.size();
            return self.set_gains(vector_or_scalar(kp, "PdController.set_gains", "kp", n),
                                  vector_or_scalar(kd, "PdController.set_gains", "kd", n));
          },
          py::arg("kp"), py::arg("kd"), "Real-time-safe gain change; returns Status.")
      .def_property_readonly(
          "command_state", [](const Controller& self) { return to_numpy(self.command_state()); },
          "The command state S = [p*; v*; a*] (3, N) after the last call (a copy).");

  py::class_<Adapter>(
      m, "PdAdapter",
      "PdAdapter(n, **settings): gym_jiminy's PD adapter for n joints: each agent step of\n"
      "step_dt [s] turns the action (order Position: target position; Velocity: target velocity)\n"
      "into the target acceleration a PdController holds over the step (see pd_adapter()).\n"
      "Keywords: order (PdActionOrder, default Velocity), instantaneous (bool), step_dt [s],\n"
      "velocity_deadband [pos/s] (float, (N,) or None).")
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             if (n < 0) throw py::value_error("PdAdapter: n must be >= 0");
             auto a = std::make_unique<Adapter>(n);
             AdapterSettings s = a->settings();
             apply_fields(s, kwargs, n, "PdAdapter", kAdapterFields);
             require_ok(a->configure(s), "PdAdapter");
             return a;
           }),
           py::arg("n"))
      .def_property_readonly("n", &Adapter::size, "Number of joints.")
      .def(
          "update",
          [](const Adapter& self, py::handle action, Controller& controller, py::handle out) {
            const char* w = "PdAdapter.update";
            const Eigen::Index n = self.size();
            if (controller.size() != n)
              throw py::value_error("PdAdapter.update: controller has " +
                                    std::to_string(controller.size()) + " joints, not " +
                                    std::to_string(n));
            auto a = vector_in(action, w, "action", n);
            auto o = vector_out(out, w, "out", n);
            return maybe_release(n, [&] { return self.update(a, controller, o); });
          },
          py::arg("action"), py::arg("controller"), py::arg("out"),
          "One agent step: the target acceleration for `controller` into out [pos/s^2] (and, when\n"
          "instantaneous, the controller's command state rewritten). Returns Status.");

  m.def(
      "pd_controller_bounds",
      [](py::handle position_lower, py::handle position_upper, py::handle velocity_limit,
         py::handle effort_limit, py::handle mechanical_reduction, py::handle kp, py::handle kd,
         double step_dt, double joint_position_margin, double joint_velocity_limit,
         py::object joint_acceleration_limit) -> py::object {
        const char* w = "pd_controller_bounds";
        claw::MotorLimits<double, Eigen::Dynamic> motors;
        motors.position_lower = vector_in(position_lower, w, "position_lower");
        const Eigen::Index n = motors.position_lower.size();
        motors.position_upper = vector_in(position_upper, w, "position_upper", n);
        motors.velocity_limit = vector_in(velocity_limit, w, "velocity_limit", n);
        motors.effort_limit = vector_in(effort_limit, w, "effort_limit", n);
        motors.mechanical_reduction = vector_in(mechanical_reduction, w, "mechanical_reduction", n);
        claw::PdBoundsOptions<double> options;
        options.joint_position_margin = joint_position_margin;
        options.joint_velocity_limit = joint_velocity_limit;
        options.infer_acceleration_limit = joint_acceleration_limit.is_none();
        if (!joint_acceleration_limit.is_none())
          options.joint_acceleration_limit = joint_acceleration_limit.cast<double>();
        claw::StateBounds<double, Eigen::Dynamic> bounds;
        const claw::Status status = claw::derive_pd_command_bounds(
            motors, vector_in(kp, w, "kp", n), vector_in(kd, w, "kd", n), step_dt, options, bounds);
        if (status != claw::Status::Ok)
          return py::make_tuple(status, py::none(), py::none(), py::none());
        return py::make_tuple(status, to_numpy(bounds.lower), to_numpy(bounds.upper),
                              to_numpy(claw::initial_command_state(bounds)));
      },
      py::arg("position_lower"), py::arg("position_upper"), py::arg("velocity_limit"),
      py::arg("effort_limit"), py::arg("mechanical_reduction"), py::arg("kp"), py::arg("kd"),
      py::arg("step_dt"), py::arg("joint_position_margin") = 0.0,
      py::arg("joint_velocity_limit") = std::numeric_limits<double>::infinity(),
      py::arg("joint_acceleration_limit") = py::none(),
      "gym_jiminy PDController's command bounds from the motors' limits (motor units, (N,) each)\n"
      "and mechanical reduction r: position [lower + r margin, upper - r margin]; velocity\n"
      "+-min(velocity_limit, r joint_velocity_limit); acceleration +-r joint_acceleration_limit,\n"
      "or when None +-min(2 vmax / step_dt, effort_limit / (kp step_dt max(step_dt, kd))).\n"
      "Returns (status, command_state_lower, command_state_upper, initial_command_state); the\n"
      "arrays are None unless status is Ok.");
  // The controller's snapshot is its command state, a (3, N) array.
  auto controller_class = py::reinterpret_borrow<py::class_<Controller>>(m.attr("PdController"));
  controller_class
      .def(
          "state", [](const Controller& self) { return to_numpy(self.state()); },
          "A snapshot: the command state (3, N) (a copy); set_state() restores it bit for bit.")
      .def(
          "set_state",
          [](Controller& self, py::handle snapshot) {
            return self.set_state(
                matrix_in(snapshot, "PdController.set_state", "snapshot", 3, self.size()));
          },
          py::arg("snapshot"), "Restores a snapshot (3, N); returns Status.");
  bind_logging(controller_class);
  auto adapter_class = py::reinterpret_borrow<py::class_<Adapter>>(m.attr("PdAdapter"));
  bind_snapshot(adapter_class);
}

}  // namespace claw_python
