// HACRL sandbox: a C++ program's entry point when it links the exception-enabled libraries,
// in place of wasi-libc's crt1-command.o (the same two steps: run main, exit with its status).
//
// Wasm exceptions have no search phase: a throw nothing catches would leave the module as a
// bare wasm exception, with no message. Caught here, it goes to std::terminate instead, whose
// libc++abi handler prints what a native run prints ("libc++abi: terminating due to uncaught
// exception of type std::out_of_range: vector") and aborts, a runtime error. One difference
// from a native run: the stack is unwound first, so destructors run (the standard leaves that
// to the implementation).
extern "C" int __original_main(void);
extern "C" void exit(int);
namespace std {
// Declared rather than included (<exception>): this file is compiled with every program.
[[noreturn]] void terminate() noexcept;
}

extern "C" __attribute__((export_name("_start"))) void _start(void) {
  int status = 0;
  try {
    status = __original_main();
  } catch (...) {
    std::terminate();
  }
  if (status != 0) {
    exit(status);
  }
}
