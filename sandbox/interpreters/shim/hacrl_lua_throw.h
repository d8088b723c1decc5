/* Lua's error unwinding without setjmp (wasm32-wasi has none): the host runs each protected
   call as a nested call and unwinds it with a trap (sandbox/src/interpreters). */
#define luai_jmpbuf int
__attribute__((import_module("hacrl"), import_name("protected_call")))
void hacrl_protected_call(void (*f)(void *, void *), void *L, void *ud);
__attribute__((import_module("hacrl"), import_name("throw"), noreturn))
void hacrl_throw(void);
#define LUAI_THROW(L,c) ((void)(c), hacrl_throw())
#define LUAI_TRY(L,c,a) hacrl_protected_call((void (*)(void *, void *))f, (L), ud)
