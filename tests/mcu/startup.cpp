// tests/mcu/startup.cpp: reset and fault handling for QEMU's mps2-an386 (Cortex-M4F): the vector
// table at address 0 (initial stack pointer, then the handlers), a reset handler that enables the
// FPU before any float instruction and hands over to newlib's _start, and a fault handler that
// reports through semihosting and stops QEMU with a non-zero exit status instead of hanging until
// the time limit.
#include <cstdint>

extern "C" {
[[noreturn]] void _start();  // newlib's crt0 (rdimon): heap/stack, .bss, constructors, main, exit
extern std::uint32_t __stack_top;  // the linker script: top of RAM
[[noreturn]] void claw_mcu_reset_handler();
[[noreturn]] void claw_mcu_fault_handler();
}

// CPACR (0xE000ED88) bits 20-23: CP10 and CP11 full access; dsb/isb make the change take effect
// before the first floating-point instruction (with the FPU off it would fault). Naked: the
// compiler emits no prologue, so nothing runs before the FPU is on.
extern "C" __attribute__((naked, noreturn)) void claw_mcu_reset_handler() {
  __asm volatile(
      "ldr r0, =0xE000ED88\n"
      "ldr r1, [r0]\n"
      "orr r1, r1, #(0xF << 20)\n"
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
      "b _start\n");
}

// Semihosting SYS_WRITE0 (0x04) of a message, then SYS_EXIT (0x18) with
// ADP_Stopped_RunTimeErrorUnknown (0x20023): QEMU exits with status 1.
extern "C" __attribute__((naked, noreturn)) void claw_mcu_fault_handler() {
  __asm volatile(
      "movs r0, #0x04\n"
      "ldr r1, =claw_mcu_fault_message\n"
      "bkpt 0xAB\n"
      "movs r0, #0x18\n"
      "ldr r1, =0x20023\n"
      "bkpt 0xAB\n"
      "1: b 1b\n");
}

extern "C" __attribute__((used)) const char claw_mcu_fault_message[] =
    "claw mcu: processor fault (HardFault, MemManage, BusFault, UsageFault or NMI)\n";

using Handler = void (*)();

// Cortex-M vector table: SP, Reset, NMI, HardFault, MemManage, BusFault, UsageFault, 4 reserved,
// SVCall, DebugMonitor, reserved, PendSV, SysTick. The linker script places .vectors at 0.
extern "C" __attribute__((section(".vectors"), used)) const Handler claw_mcu_vectors[16] = {
    reinterpret_cast<Handler>(&__stack_top),
    claw_mcu_reset_handler,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
    nullptr,
    claw_mcu_fault_handler,
    claw_mcu_fault_handler,
};
