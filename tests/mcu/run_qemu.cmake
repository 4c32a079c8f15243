# tests/mcu/run_qemu.cmake: runs one firmware on QEMU's mps2-an386 with a time limit and checks the result.
#   cmake -DQEMU=qemu-system-arm -DELF=app.elf -DTIMEOUT=300 [-DEXPECT_SUMMARY=ON] -P run_qemu.cmake
# Passes when QEMU exits with 0 (semihosting: main's return value) within TIMEOUT seconds and, with
# EXPECT_SUMMARY, the program's last line reads "N passed, 0 failed" with N > 0.
foreach(var QEMU ELF TIMEOUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_qemu.cmake: -D${var}=... is required")
  endif()
endforeach()

string(TIMESTAMP start "%s")
execute_process(
  COMMAND "${QEMU}" -M mps2-an386 -nographic -semihosting -kernel "${ELF}"
  INPUT_FILE /dev/null
  TIMEOUT ${TIMEOUT}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors)
string(TIMESTAMP stop "%s")
math(EXPR seconds "${stop} - ${start}")
message("${output}")
if(errors)
  message("qemu stderr:\n${errors}")
endif()
get_filename_component(name "${ELF}" NAME)
message("run_qemu: ${name}: exit status ${status} after ${seconds} s (limit ${TIMEOUT} s)")

if(NOT status STREQUAL "0")
  message(FATAL_ERROR "run_qemu: ${name} failed: exit status '${status}'")
endif()
if(EXPECT_SUMMARY)
  string(STRIP "${output}" trimmed)
  string(REGEX MATCH "[^\n]*$" last_line "${trimmed}")
  string(STRIP "${last_line}" last_line)
  if(NOT last_line MATCHES "^([0-9]+) passed, ([0-9]+) failed$")
    message(FATAL_ERROR "run_qemu: ${name}: no summary line 'N passed, M failed' at the end")
  endif()
  if(NOT CMAKE_MATCH_2 EQUAL 0 OR CMAKE_MATCH_1 EQUAL 0)
    message(FATAL_ERROR "run_qemu: ${name}: ${last_line}")
  endif()
endif()
