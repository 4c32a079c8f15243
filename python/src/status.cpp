// python/src/status.cpp: claw.Status, built from the one table CLAW_PYTHON_STATUSES, and the
// argument checks of common.hpp.
#include <array>
#include <limits>

#include "arrays.hpp"
#include "common.hpp"

namespace claw_python {

namespace {
constexpr std::size_t kStatusCount = 0
#define CLAW_PYTHON_COUNT(name, doc) +1
    CLAW_PYTHON_STATUSES(CLAW_PYTHON_COUNT)
#undef CLAW_PYTHON_COUNT
    ;
/// One strong reference per status value, taken at import, kept for the interpreter's lifetime.
std::array<PyObject*, kStatusCount> g_status_objects{};
}  // namespace

void bind_status(py::module_& m) {
  py::enum_<claw::Status> status(
      m, "Status",
      "Result of a claw call. Anything but Ok means the call left its state and outputs as they "
      "were (NumericalOverflow: only the joints that overflowed). A status is a return value, "
      "never an exception; exceptions are raised for misuse only (types, shapes, layouts).");
#define CLAW_PYTHON_ENUM_VALUE(name, doc) status.value(#name, claw::Status::name, doc);
  CLAW_PYTHON_STATUSES(CLAW_PYTHON_ENUM_VALUE)
#undef CLAW_PYTHON_ENUM_VALUE
  std::size_t i = 0;
#define CLAW_PYTHON_CACHE(name, doc) \
  g_status_objects[i++] = py::cast(claw::Status::name).release().ptr();
  CLAW_PYTHON_STATUSES(CLAW_PYTHON_CACHE)
#undef CLAW_PYTHON_CACHE
  status.def_property_readonly(
      "ok", [](claw::Status s) { return s == claw::Status::Ok; }, "True for Status.Ok.");
  status.def(
      "__bool__", [](claw::Status s) { return s == claw::Status::Ok; },
      "True for Status.Ok only, so `if not status:` catches every failure.");
}

PyObject* status_object(claw::Status status) noexcept {
  const auto index = static_cast<std::size_t>(status);
  PyObject* object = index < kStatusCount ? g_status_objects[index] : Py_None;
  Py_INCREF(object);
  return object;
}

double* checked_array(py::handle obj, const char* where, const char* name, int ndim,
                      Eigen::Index rows, Eigen::Index cols, bool writable, Eigen::Index* shape) {
  std::ptrdiff_t extents[2] = {0, 0};
  double* data = array_data(obj.ptr(), where, name, ndim, rows, cols, writable, extents);
  if (!data) throw py::error_already_set();
  shape[0] = extents[0];
  shape[1] = ndim == 2 ? extents[1] : 1;
  return data;
}

Eigen::VectorXd vector_or_scalar(py::handle obj, const char* where, const char* name,
                                 Eigen::Index n) {
  if (py::isinstance<py::array>(obj)) return vector_in(obj, where, name, n);
  if (PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()))
    return Eigen::VectorXd::Constant(n, obj.cast<double>());
  throw py::type_error(std::string(where) + ": " + name +
                       " must be a float or a float64 numpy.ndarray of " + std::to_string(n) +
                       " entries");
}

}  // namespace claw_python
