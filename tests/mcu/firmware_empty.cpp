// tests/mcu/firmware_empty.cpp: the size report's baseline: the same startup, C library and flags
// as the other firmwares, and a main that does nothing.
int main() { return 0; }
