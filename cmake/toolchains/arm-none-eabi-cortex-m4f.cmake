# cmake/toolchains/arm-none-eabi-cortex-m4f.cmake: cross toolchain for an Arm Cortex-M4F (single-precision
# FPU, hard-float ABI, no exceptions, no RTTI), Debian's gcc-arm-none-eabi 12.2 with newlib and libstdc++.
#
#   cmake -S . -B build/mcu --toolchain cmake/toolchains/arm-none-eabi-cortex-m4f.cmake
#
# Only the CPU/ABI flags live here (they must agree for every object of an image). Optimisation,
# sections, specs (rdimon for semihosting, nano) and the linker script belong to each firmware target:
# see tests/mcu/CMakeLists.txt (claw_mcu_firmware()).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CLAW_ARM_TRIPLE arm-none-eabi CACHE STRING "Prefix of the cross tools (arm-none-eabi-gcc, ...)")
find_program(CMAKE_C_COMPILER ${CLAW_ARM_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER ${CLAW_ARM_TRIPLE}-g++ REQUIRED)
set(CMAKE_ASM_COMPILER ${CMAKE_C_COMPILER})
find_program(CMAKE_OBJCOPY ${CLAW_ARM_TRIPLE}-objcopy)
find_program(CMAKE_SIZE ${CLAW_ARM_TRIPLE}-size)

# Compiler checks build a static library: nothing to link, no startup code or specs needed.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CLAW_CORTEX_M4F_FLAGS
    "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
set(CMAKE_C_FLAGS_INIT "${CLAW_CORTEX_M4F_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${CLAW_CORTEX_M4F_FLAGS} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${CLAW_CORTEX_M4F_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${CLAW_CORTEX_M4F_FLAGS}")

# Programs (python3, qemu-system-arm) are the host's. CMake packages too: Eigen is header-only and
# architecture independent (its version file accepts any pointer size), so find_package(Eigen3) finds
# the host's /usr/include/eigen3.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
