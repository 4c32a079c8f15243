// python/src/settings.hpp: settings structs filled from Python keyword arguments through a table
// of named fields (vectors accept a float, broadcast to every joint, or a float64 array).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common.hpp"

namespace claw_python {

/// One named field of a settings struct S: writes the Python value into S for n joints.
template <typename S>
struct Field {
  const char* name;
  void (*set)(S& settings, py::handle value, Eigen::Index n, const char* where);
};

/// Applies every keyword of `kwargs` through `fields`; TypeError for an unknown keyword (listing
/// the known ones), and whatever a field's conversion raises.
template <typename S, std::size_t K>
void apply_fields(S& settings, const py::kwargs& kwargs, Eigen::Index n, const char* where,
                  const Field<S> (&fields)[K]) {
  for (const auto& item : kwargs) {
    const std::string key = py::str(item.first);
    bool found = false;
    for (const Field<S>& f : fields)
      if (key == f.name) {
        f.set(settings, item.second, n, where);
        found = true;
        break;
      }
    if (!found) {
      std::string known;
      for (const Field<S>& f : fields) known += std::string(known.empty() ? "" : ", ") + f.name;
      throw py::type_error(std::string(where) + ": unknown setting '" + key + "' (known: " + known +
                           ")");
    }
  }
}

/// A Python value cast to T, or TypeError naming the setting.
template <typename T>
T cast_setting(py::handle value, const char* where, const char* name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(where) + ": setting " + name + " has the wrong type (" +
                         std::string(py::str(py::type::of(value).attr("__name__"))) + ")");
  }
}

/// Raises ValueError when a constructor's settings were refused (misuse: a constructor has no
/// status to return; configure() returns it instead).
inline void require_ok(claw::Status status, const char* where) {
  if (status != claw::Status::Ok)
    throw py::value_error(std::string(where) + ": settings refused (" + claw::to_string(status) +
                          ")");
}

}  // namespace claw_python

/// Field-table entries: a per-joint vector, a scalar or enum/bool member (cast to its type).
#define CLAW_PYTHON_VECTOR(S, member)                                                             \
  claw_python::Field<S> {                                                                         \
#member,                                                                                      \
        [](S & s, pybind11::handle v, Eigen::Index n,                                             \
           const char* where) { s.member = claw_python::vector_or_scalar(v, where, #member, n); } \
  }
#define CLAW_PYTHON_VALUE(S, member)                                                         \
  claw_python::Field<S> {                                                                    \
#member, [](S& s, pybind11::handle v, Eigen::Index, const char* where) {                   \
      s.member = claw_python::cast_setting<std::decay_t<decltype(s.member)>>(v, where, #member); \
    } \
  }
