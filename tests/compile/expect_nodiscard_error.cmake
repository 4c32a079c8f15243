# tests/compile/expect_nodiscard_error.cmake: runs COMMAND (arguments separated by "|") and succeeds
# only when it fails with a diagnostic that names nodiscard. Usage: cmake -DCOMMAND=a|b|c -P this_file
string(REPLACE "|" ";" COMMAND "${COMMAND}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "compiled, but dropping a claw::Status must be an error:\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "nodiscard")
  message(FATAL_ERROR "failed for another reason than [[nodiscard]]:\n${out}${err}")
endif()
message(STATUS "refused as expected: [[nodiscard]] Status dropped")
