// python/src/jiminy.cpp: drop-ins for gym_jiminy's proportional_derivative_controller functions
// (integrate_zoh, pd_controller, pd_adapter, get_encoder_to_motor_map), same signatures, arrays
// updated in place. The three hot ones are plain CPython "fastcall" functions whose argument
// checks (array_data, arrays.cpp) cost a few pointer reads each, where a generic binding costs
// more than claw's whole computation at N = 7.
//
// Policy: float64, native byte order, aligned, C-contiguous arrays of the right shape (state
// 3 x N, vectors N), outputs writable; anything else raises TypeError / ValueError naming the
// argument, before anything is written. NaN (or Inf where a finite value is required) in an
// argument raises ValueError naming it, nothing written (claw refused the call). Every other
// refusal is the returned claw.Status, as in C++; gym_jiminy's callers, which ignore the return
// value, see the in-place results unchanged whenever the status is Ok.
#include <pybind11/stl.h>

#include <claw/blocks/pd_adapter.hpp>
#include <claw/blocks/pd_controller.hpp>
#include <claw/integrators/zoh.hpp>
#include <cmath>
#include <vector>

#include "arrays.hpp"
#include "common.hpp"
#include "jiminy_fast.hpp"

namespace claw_python {

namespace {

using StateMap = Eigen::Map<claw::StateMatrix<double, Eigen::Dynamic>>;
using ConstStateMap = Eigen::Map<const claw::StateMatrix<double, Eigen::Dynamic>>;

/// A function's parameter names; the first `required` are mandatory.
struct Signature {
  const char* function;
  const char* const* names;
  int count;
  int required;
};

/// Puts positional and keyword arguments into slots[0..count) by name (nullptr when absent).
/// Raises TypeError as CPython does for a wrong call.
bool collect_arguments(const Signature& sig, PyObject* const* args, Py_ssize_t nargs,
                       PyObject* kwnames, PyObject** slots) {
  if (nargs > sig.count) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", sig.function,
                 sig.count, nargs);
    return false;
  }
  for (int i = 0; i < sig.count; ++i) slots[i] = i < nargs ? args[i] : nullptr;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int index = -1;
    for (int i = 0; i < sig.count && index < 0; ++i)
      if (PyUnicode_CompareWithASCIIString(key, sig.names[i]) == 0) index = i;
    if (index < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", sig.function,
                   key);
      return false;
    }
    if (slots[index]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", sig.function,
                   sig.names[index]);
      return false;
    }
    slots[index] = args[nargs + k];
  }
  for (int i = 0; i < sig.required; ++i)
    if (!slots[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", sig.function,
                   sig.names[i]);
      return false;
    }
  return true;
}

/// A Python float (or anything with __float__, such as numpy.float64) as a double.
bool float_arg(PyObject* obj, const char* function, const char* name, double& value) {
  value = PyFloat_AsDouble(obj);
  if (value == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: %s must be a float, not %s", function, name,
                 Py_TYPE(obj)->tp_name);
    return false;
  }
  return true;
}

/// An argument that claw refuses when it holds NaN (or any non-finite value when `finite`).
struct Checked {
  const char* name;
  const double* data;
  std::ptrdiff_t size;
  bool finite;
};

/// After claw refused a call: ValueError naming the first argument holding NaN (or NaN/Inf where
/// `finite`), else the status object. Not on the hot path.
PyObject* status_or_nan_error(claw::Status status, const char* function,
                              std::initializer_list<Checked> arguments) {
  if (status != claw::Status::Ok && status != claw::Status::NumericalOverflow) {
    for (const Checked& c : arguments)
      for (std::ptrdiff_t i = 0; i < c.size; ++i)
        if (std::isnan(c.data[i]) || (c.finite && !std::isfinite(c.data[i]))) {
          PyErr_Format(PyExc_ValueError, "%s: %s holds %s at index %zd; nothing was written",
                       function, c.name, c.finite ? "NaN or Inf" : "NaN", i);
          return nullptr;
        }
  }
  return status_object(status);
}

/// Runs f with the GIL released when the batch is long enough for that to pay.
template <typename F>
claw::Status run(std::ptrdiff_t joints, F&& f) {
  if (joints < kReleaseGilFrom) return f();
  claw::Status status;
  Py_BEGIN_ALLOW_THREADS status = f();
  Py_END_ALLOW_THREADS return status;
}

/// The calling thread's scratch of the fast paths (jiminy_fast.hpp).
PdScratch& thread_scratch() {
  thread_local PdScratch scratch;
  return scratch;
}

/// Sizes the scratch for n joints (allocates when it grows); false when out of memory.
bool reserve(PdScratch& scratch, std::ptrdiff_t n) noexcept {
  if (scratch.target.size() >= n) return true;
  try {
    scratch.target.resize(n);
    scratch.inverse.resize(n);
    scratch.a_max.resize(n);
    scratch.cached_joints = -1;
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

// ---- integrate_zoh ---------------------------------------------------------------------------

const char* const kZohNames[] = {"state", "state_min", "state_max", "dt"};
constexpr Signature kZoh{"integrate_zoh", kZohNames, 4, 4};

/// integrate_zoh through the vectorised step (jiminy_fast.hpp) when `fast`, else through
/// claw::integrate_zoh itself (the hidden _integrate_zoh_reference, for the tests).
template <bool fast>
PyObject* py_integrate_zoh(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[4];
  if (!collect_arguments(kZoh, args, nargs, kwnames, a)) return nullptr;
  std::ptrdiff_t shape[2];
  double* state = array_data(a[0], kZoh.function, "state", 2, 3, -1, true, shape);
  if (!state) return nullptr;
  const std::ptrdiff_t n = shape[1];
  const double* lower = array_data(a[1], kZoh.function, "state_min", 2, 3, n, false);
  if (!lower) return nullptr;
  const double* upper = array_data(a[2], kZoh.function, "state_max", 2, 3, n, false);
  if (!upper) return nullptr;
  double dt;
  if (!float_arg(a[3], kZoh.function, "dt", dt)) return nullptr;
  PdScratch& scratch = thread_scratch();
  if (!reserve(scratch, n)) return PyErr_NoMemory();
  const claw::Status status = run(n, [&] {
    if (fast) {
      const claw::Status s = integrate_zoh_contiguous(n, state, lower, upper, dt, scratch);
      if (s != kDelegate) return s;
    }
    return claw::integrate_zoh(StateMap(state, 3, n), ConstStateMap(lower, 3, n),
                               ConstStateMap(upper, 3, n), dt);
  });
  return status_or_nan_error(status, kZoh.function,
                             {{"dt", &dt, 1, true},
                              {"state", state, 3 * n, true},
                              {"state_min", lower, 3 * n, false},
                              {"state_max", upper, 3 * n, false}});
}

// ---- pd_controller ---------------------------------------------------------------------------

const char* const kPdNames[] = {
    "q_measured", "v_measured", "command_state",       "command_state_lower", "command_state_upper",
    "kp",         "kd",         "motors_effort_limit", "control_dt",          "out"};
constexpr Signature kPd{"pd_controller", kPdNames, 10, 10};

/// pd_controller through claw's vectorised kernel (jiminy_fast.hpp) when `fast`, else through
/// claw::pd_controller itself (the hidden _pd_controller_reference, for the tests).
template <bool fast>
PyObject* py_pd_controller(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[10];
  if (!collect_arguments(kPd, args, nargs, kwnames, a)) return nullptr;
  const char* f = kPd.function;
  std::ptrdiff_t shape[2];
  double* state = array_data(a[2], f, "command_state", 2, 3, -1, true, shape);
  if (!state) return nullptr;
  const std::ptrdiff_t n = shape[1];
  const double* q = array_data(a[0], f, "q_measured", 1, n, -1, false);
  if (!q) return nullptr;
  const double* v = array_data(a[1], f, "v_measured", 1, n, -1, false);
  if (!v) return nullptr;
  const double* lower = array_data(a[3], f, "command_state_lower", 2, 3, n, false);
  if (!lower) return nullptr;
  const double* upper = array_data(a[4], f, "command_state_upper", 2, 3, n, false);
  if (!upper) return nullptr;
  const double* kp = array_data(a[5], f, "kp", 1, n, -1, false);
  if (!kp) return nullptr;
  const double* kd = array_data(a[6], f, "kd", 1, n, -1, false);
  if (!kd) return nullptr;
  const double* limit = array_data(a[7], f, "motors_effort_limit", 1, n, -1, false);
  if (!limit) return nullptr;
  double dt;
  if (!float_arg(a[8], f, "control_dt", dt)) return nullptr;
  double* out = array_data(a[9], f, "out", 1, n, -1, true);
  if (!out) return nullptr;
  PdScratch& scratch = thread_scratch();
  if (fast && !reserve(scratch, n)) return PyErr_NoMemory();
  const claw::Status status = run(n, [&] {
    claw::Status s;
    if (fast &&
        pd_controller_contiguous(n, q, v, state, lower, upper, kp, kd, limit, dt, out, scratch, s))
      return s;
    return claw::pd_controller(ConstVectorMap(q, n), ConstVectorMap(v, n), StateMap(state, 3, n),
                               ConstStateMap(lower, 3, n), ConstStateMap(upper, 3, n),
                               ConstVectorMap(kp, n), ConstVectorMap(kd, n),
                               ConstVectorMap(limit, n), dt, VectorMap(out, n));
  });
  return status_or_nan_error(status, f,
                             {{"q_measured", q, n, true},
                              {"v_measured", v, n, true},
                              {"control_dt", &dt, 1, true},
                              {"command_state", state, 3 * n, true},
                              {"command_state_lower", lower, 3 * n, false},
                              {"command_state_upper", upper, 3 * n, false},
                              {"kp", kp, n, true},
                              {"kd", kd, n, true},
                              {"motors_effort_limit", limit, n, false}});
}

// ---- pd_adapter ------------------------------------------------------------------------------

const char* const kAdapterNames[] = {
    "action", "order", "command_state",    "command_state_lower",     "command_state_upper",
    "dt",     "out",   "is_instantaneous", "motors_velocity_deadband"};
constexpr Signature kAdapter{"pd_adapter", kAdapterNames, 9, 7};

PyObject* py_pd_adapter(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[9];
  if (!collect_arguments(kAdapter, args, nargs, kwnames, a)) return nullptr;
  const char* f = kAdapter.function;
  std::ptrdiff_t shape[2];
  double* state = array_data(a[2], f, "command_state", 2, 3, -1, true, shape);
  if (!state) return nullptr;
  const std::ptrdiff_t n = shape[1];
  const double* action = array_data(a[0], f, "action", 1, n, -1, false);
  if (!action) return nullptr;
  const long order = PyLong_Check(a[1]) ? PyLong_AsLong(a[1]) : -1;
  if (order != 0 && order != 1) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s: order must be the int 0 (position) or 1 (velocity)", f);
    return nullptr;
  }
  const double* lower = array_data(a[3], f, "command_state_lower", 2, 3, n, false);
  if (!lower) return nullptr;
  const double* upper = array_data(a[4], f, "command_state_upper", 2, 3, n, false);
  if (!upper) return nullptr;
  double dt;
  if (!float_arg(a[5], f, "dt", dt)) return nullptr;
  double* out = array_data(a[6], f, "out", 1, n, -1, true);
  if (!out) return nullptr;
  bool instantaneous = false;
  if (a[7]) {
    const int truth = PyObject_IsTrue(a[7]);
    if (truth < 0) return nullptr;
    instantaneous = truth != 0;
  }
  const double* deadband = nullptr;
  std::ptrdiff_t n_deadband = 0;
  if (a[8] && a[8] != Py_None) {
    deadband = array_data(a[8], f, "motors_velocity_deadband", 1, n, -1, false);
    if (!deadband) return nullptr;
    n_deadband = n;
  }
  const auto action_order =
      order == 0 ? claw::PdActionOrder::Position : claw::PdActionOrder::Velocity;
  const claw::Status status = run(n, [&] {
    return claw::pd_adapter(ConstVectorMap(action, n), action_order, StateMap(state, 3, n),
                            ConstStateMap(lower, 3, n), ConstStateMap(upper, 3, n), instantaneous,
                            ConstVectorMap(deadband, n_deadband), dt, VectorMap(out, n));
  });
  return status_or_nan_error(status, f,
                             {{"dt", &dt, 1, true},
                              {"action", action, n, true},
                              {"command_state", state, 3 * n, true},
                              {"command_state_lower", lower, 3 * n, false},
                              {"command_state_upper", upper, 3 * n, false},
                              {"motors_velocity_deadband", deadband, n_deadband, false}});
}

// The first lines ("name(signature)\n--\n\n") give inspect.signature() the parameters.
PyMethodDef kMethods[] = {
    {"_integrate_zoh_reference",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_integrate_zoh<false>)),
     METH_FASTCALL | METH_KEYWORDS,
     "integrate_zoh computed by claw::integrate_zoh itself (tests compare it with integrate_zoh)."},
    {"integrate_zoh",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_integrate_zoh<true>)),
     METH_FASTCALL | METH_KEYWORDS,
     "integrate_zoh(state, state_min, state_max, dt)\n--\n\n"
     "gym_jiminy's integrate_zoh: one zero-order-hold step of dt [s] of the command state in "
     "place.\n\n"
     "state: (3, N) float64, rows position [rad or m], velocity [/s], acceleration [/s^2], "
     "updated\n"
     "in place; state_min, state_max: (3, N) bounds (+-inf: unbounded). Per joint: clip a, then\n"
     "v+ = clip(v + a dt), braking horizon and position clips, a <- (v+ - v) / dt, p+ = p + dt "
     "v+,\n"
     "bit for bit gym_jiminy 1.8.12 (without fast-math). |dt| < 1e-9: nothing touched.\n"
     "Returns claw.Status: Ok; NegativeTimeStep (dt < 0, where gym_jiminy asserts); InvalidBounds\n"
     "(amax = 0 where gym_jiminy divides by zero); NumericalOverflow (those joints held).\n"
     "Raises TypeError/ValueError for a wrong dtype, layout or shape, and ValueError for NaN in "
     "an\n"
     "argument (or Inf in state or dt); nothing is written then."},
    {"_pd_controller_reference",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_pd_controller<false>)),
     METH_FASTCALL | METH_KEYWORDS,
     "pd_controller computed by claw::pd_controller itself (tests compare it with pd_controller)."},
    {"pd_controller",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_pd_controller<true>)),
     METH_FASTCALL | METH_KEYWORDS,
     "pd_controller(q_measured, v_measured, command_state, command_state_lower, "
     "command_state_upper, kp, kd, motors_effort_limit, control_dt, out)\n--\n\n"
     "gym_jiminy's pd_controller: integrate_zoh(command_state, ..., control_dt) in place, then\n"
     "out = clip(kp ((p* - q) + kd (v* - v)), -motors_effort_limit, motors_effort_limit).\n\n"
     "q_measured [rad or m], v_measured [/s], kp [effort/pos], kd [s] (a time constant: the\n"
     "parallel derivative gain is kp kd), motors_effort_limit [effort]: (N,) float64;\n"
     "command_state and its bounds (3, N); control_dt [s]; out (N,) written in place.\n"
     "Returns claw.Status (see integrate_zoh; InvalidParameter for negative gains or limits).\n"
     "Raises as integrate_zoh does; nothing is written then. The GIL is released for N >= 2048."},
    {"pd_adapter", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_pd_adapter)),
     METH_FASTCALL | METH_KEYWORDS,
     "pd_adapter(action, order, command_state, command_state_lower, command_state_upper, dt, "
     "out, is_instantaneous=False, motors_velocity_deadband=None)\n--\n\n"
     "gym_jiminy's pd_adapter: turns an action (order 0: target position [rad or m]; order 1:\n"
     "target velocity [/s]) into the target acceleration out [/s^2] held over the step dt [s]:\n"
     "vt = (action - p*) / dt or action, clipped to the velocity bounds (zeroed below the\n"
     "deadband), out = (vt - v*) / dt. is_instantaneous rewrites command_state instead and\n"
     "writes out = 0. |dt| < 1e-9: nothing touched. Returns claw.Status; raises for misuse."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void bind_jiminy(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), kMethods) < 0) throw py::error_already_set();

  m.def(
      "get_encoder_to_motor_map",
      [](const std::vector<long>& encoder_motor_index) -> py::object {
        const auto n = static_cast<Eigen::Index>(encoder_motor_index.size());
        Eigen::Matrix<long, Eigen::Dynamic, 1> index(n), map(n);
        for (Eigen::Index j = 0; j < n; ++j) index(j) = encoder_motor_index[std::size_t(j)];
        bool identity = false;
        if (claw::encoder_to_motor_map(index, map, identity) != claw::Status::Ok)
          throw py::value_error(
              "get_encoder_to_motor_map: encoder_motor_index must be a permutation of 0..N-1");
        if (identity) return py::slice(py::none(), py::none(), py::none());
        py::list result;
        for (Eigen::Index j = 0; j < n; ++j) result.append(map(j));
        return std::move(result);
      },
      py::arg("encoder_motor_index"),
      "gym_jiminy's get_encoder_to_motor_map from the motor index each encoder measures:\n"
      "encoder j measures motor encoder_motor_index[j]. Returns slice(None) when no reordering\n"
      "is needed, else the list map with map[j] = encoder_motor_index[j] (gym_jiminy then reads\n"
      "encoder_data[:, map]). Raises ValueError unless it is a permutation of 0..N-1.");
}

}  // namespace claw_python
