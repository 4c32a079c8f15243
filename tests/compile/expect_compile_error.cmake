# tests/compile/expect_compile_error.cmake: runs COMMAND (arguments separated by "|") and succeeds
# only when it fails with a diagnostic matching the regular expression EXPECT.
# Usage: cmake -DCOMMAND=a|b|c "-DEXPECT=regex" -P this_file
string(REPLACE "|" ";" COMMAND "${COMMAND}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "compiled, but it must fail with \"${EXPECT}\":\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "failed for another reason than \"${EXPECT}\":\n${out}${err}")
endif()
message(STATUS "refused as expected: ${EXPECT}")
