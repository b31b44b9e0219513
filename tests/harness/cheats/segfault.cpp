// Crashes the process: the harness dies, and the driver sees EOF and restarts it.
extern "C" void ar_kernel(const void* params) {
  volatile int* nowhere = nullptr;
  *nowhere = static_cast<int>(reinterpret_cast<long>(params));
}
