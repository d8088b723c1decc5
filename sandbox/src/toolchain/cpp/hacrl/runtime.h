/* HACRL sandbox: forced into every C and C++ compile (clang -include).
 *
 * Debian's wasm32 compiler runtime (libclang_rt.builtins-wasm32.a) was built with the stack
 * protector, so its 128-bit division (__umodti3, __divti3, ...) refers to __stack_chk_guard and
 * __stack_chk_fail, which wasi-libc does not define: any program dividing an __int128 failed to
 * link. Weak definitions here satisfy the linker and give way to any other definition. A
 * tripped canary traps, which the sandbox reports as a runtime error. */
#ifndef HACRL_RUNTIME_H
#define HACRL_RUNTIME_H
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((weak)) unsigned long __stack_chk_guard = 0x2f8ad4e1UL;
__attribute__((weak, noreturn)) void __stack_chk_fail(void) { __builtin_trap(); }
#ifdef __cplusplus
}
#endif
#endif /* HACRL_RUNTIME_H */
