// python/src/snapshot.hpp: the logging methods every stateful binding shares (state_values,
// state_fieldnames, command_fieldnames), from claw/core/fields.hpp, and the opaque snapshot class.
#pragma once

#include <pybind11/stl.h>

#include <claw/core/fields.hpp>
#include <string>
#include <vector>

#include "common.hpp"

namespace claw_python {

/// The names claw/core/fields.hpp gives, as Python strings; ValueError unless joints has n names.
inline std::vector<const char*> joint_name_pointers(const std::vector<std::string>& joints,
                                                    Eigen::Index n, const char* where) {
  if (static_cast<Eigen::Index>(joints.size()) != n)
    throw py::value_error(std::string(where) + ": joints must hold " + std::to_string(n) +
                          " names");
  std::vector<const char*> pointers;
  for (const std::string& name : joints) pointers.push_back(name.c_str());
  return pointers;
}

inline std::string field_string(const claw::FieldName& field) {
  std::string name(field.length(), '\0');
  (void)field.write(&name[0], name.size() + 1);
  return name;
}

/// The names `name_fields(block, joint pointers, sink)` gives, as Python strings.
template <typename Block, typename NameFields>
std::vector<std::string> field_strings(const Block& block, const std::vector<std::string>& joints,
                                       const char* where, NameFields name_fields) {
  const auto names = joint_name_pointers(joints, block.size(), where);
  std::vector<std::string> out;
  name_fields(block, names, [&](const claw::FieldName& f) { out.push_back(field_string(f)); });
  return out;
}

/// Adds state_values(), state_fieldnames(joints) and command_fieldnames(joints) to a binding.
template <typename Block, typename... Options>
void bind_logging(py::class_<Block, Options...>& cls) {
  cls.def(
         "state_values",
         [](const Block& self) {
           Eigen::VectorXd values(claw::state_scalar_count(self));
           (void)claw::state_values(self, values);
           return to_numpy(values);
         },
         "Every state scalar (a copy), in the order of state_fieldnames().")
      .def(
          "state_fieldnames",
          [](const Block& self, const std::vector<std::string>& joints) {
            return field_strings(self, joints, "state_fieldnames", [](auto&&... arguments) {
              claw::state_field_names(arguments...);
            });
          },
          py::arg("joints"),
          "One logging name per state scalar, '<quantity><joint>' as gym_jiminy's fieldnames.")
      .def(
          "command_fieldnames",
          [](const Block& self, const std::vector<std::string>& joints) {
            return field_strings(self, joints, "command_fieldnames", [](auto&&... arguments) {
              claw::command_field_names(arguments...);
            });
          },
          py::arg("joints"), "One logging name per joint of the command (the output).");
}

/// Adds state() (an opaque copy) and set_state(snapshot) -> Status for a Block whose State is a
/// class registered with pybind11.
template <typename Block, typename... Options>
void bind_snapshot(py::class_<Block, Options...>& cls) {
  using State = typename Block::State;
  cls.def(
         "state", [](const Block& self) { return State(self.state()); },
         "A snapshot of everything carried between calls (rollback, checkpoints).")
      .def(
          "set_state", [](Block& self, const State& snapshot) { return self.set_state(snapshot); },
          py::arg("snapshot"),
          "Restores a snapshot bit for bit; returns Status (refused: nothing touched).");
  bind_logging(cls);
}

}  // namespace claw_python
