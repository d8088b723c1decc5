/* The JavaScript entry point the sandbox runs: `js PROGRAM [ARGS]` on QuickJS-ng. Before the
   program, prelude.js (embedded at build time as prelude.h) gives it the Node.js subset that
   judged programs use: console.log, process.stdout.write, process.exit, process.stdin events,
   require('fs').readFileSync of stdin and working-folder files, require('readline'). The
   program runs wrapped like a CommonJS module; timers run in virtual time once it returns.
   Built with HACRL_TYPESCRIPT it is `ts PROGRAM`: the program is TypeScript, and the host's type
   stripper turns it into the JavaScript that runs (strip_types). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quickjs.h"
#include "quickjs-libc.h"
#include "prelude.h"

/* QuickJS's recursion limit, in bytes of the shadow stack (8 MiB, set at link time). Each JS
   call also takes native wasm stack, which wasmtime caps at 4 MiB (sandbox/src/modules.rs):
   512 KiB lets about 1,800 plain JS frames nest (Node: about 11,000) and ends deeper recursion
   with a catchable RangeError before the native cap traps. */
#define JS_STACK_BYTES (512 << 10)

/* Reads all of a stream into a string (NULL on a read error). */
static char *slurp(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (buf == NULL) return NULL;
  for (;;) {
    if (n == cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (bigger == NULL) { free(buf); return NULL; }
      buf = bigger;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) { free(buf); return NULL; }
  *len = n;
  return buf;
}

/* __hacrl.readFile(path): a file's contents as a string, or null when it cannot be read;
   path "" is standard input. */
static JSValue read_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  const char *path = JS_ToCString(ctx, argv[0]);
  if (path == NULL) return JS_EXCEPTION;
  FILE *f = path[0] == '\0' ? stdin : fopen(path, "rb");
  JS_FreeCString(ctx, path);
  if (f == NULL) return JS_NULL;
  size_t len = 0;
  char *buf = slurp(f, &len);
  if (f != stdin) fclose(f);
  if (buf == NULL) return JS_NULL;
  JSValue s = JS_NewStringLen(ctx, buf, len);
  free(buf);
  return s;
}

/* __hacrl.write(fd, text): writes to standard output (1) or standard error (2). */
static JSValue write_fd(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  int fd = 1;
  if (JS_ToInt32(ctx, &fd, argv[0])) return JS_EXCEPTION;
  size_t len = 0;
  const char *s = JS_ToCStringLen(ctx, &len, argv[1]);
  if (s == NULL) return JS_EXCEPTION;
  fwrite(s, 1, len, fd == 2 ? stderr : stdout);
  JS_FreeCString(ctx, s);
  return JS_UNDEFINED;
}

/* __hacrl.exit(code): flushes and exits, as process.exit does. */
static JSValue exit_now(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  int code = 0;
  if (argc > 0 && JS_ToInt32(ctx, &code, argv[0])) return JS_EXCEPTION;
  fflush(stdout);
  fflush(stderr);
  exit(code);
}

/* Prints the pending exception like an uncaught error and ends the run. */
static void fail(JSContext *ctx) {
  fflush(stdout);
  js_std_dump_error(ctx);
  fflush(stderr);
  exit(1);
}

#ifdef HACRL_TYPESCRIPT
/* The type stripper, a script the host holds (sucrase bundled by 24-typescript.sh, with
   sandbox/interpreters/typescript.js) and hands over through these two imports rather than
   as a file: the run's working folder stays the program's alone. */
__attribute__((import_module("hacrl"), import_name("stripper_size")))
extern unsigned int hacrl_stripper_size(void);
__attribute__((import_module("hacrl"), import_name("stripper_read")))
extern void hacrl_stripper_read(char *dst);

/* The JavaScript that runs in place of the TypeScript `source`: the stripper runs in the
   guest, so the untrusted source never reaches a parser on the host. A syntax error ends the
   run as an uncaught SyntaxError, as one in JavaScript does. */
static char *strip_types(JSContext *ctx, JSRuntime *rt, char *source, size_t *len,
                         const char *name) {
  size_t size = hacrl_stripper_size();
  char *script = malloc(size + 1);
  if (script == NULL) {
    fputs("ts: out of memory\n", stderr);
    exit(1);
  }
  hacrl_stripper_read(script);
  script[size] = '\0';
  JSValue strip = JS_Eval(ctx, script, size, "<typescript>", JS_EVAL_TYPE_GLOBAL);
  free(script);
  if (JS_IsException(strip)) fail(ctx);
  JSValue args[2] = {JS_NewStringLen(ctx, source, *len), JS_NewString(ctx, name)};
  free(source);
  JSValue code = JS_Call(ctx, strip, JS_UNDEFINED, 2, args);
  if (JS_IsException(code)) fail(ctx);
  const char *text = JS_ToCStringLen(ctx, len, code);
  if (text == NULL) fail(ctx);
  char *stripped = malloc(*len + 1);
  if (stripped == NULL) {
    fputs("ts: out of memory\n", stderr);
    exit(1);
  }
  memcpy(stripped, text, *len + 1);
  JS_FreeCString(ctx, text);
  JS_FreeValue(ctx, code);
  JS_FreeValue(ctx, args[0]);
  JS_FreeValue(ctx, args[1]);
  JS_FreeValue(ctx, strip);
  /* The stripper's closures hold cycles: collect them before the program allocates. */
  JS_RunGC(rt);
  return stripped;
}
#endif

/* Promises rejected with no handler attached yet, with their reasons. */
static struct rejection { JSValue promise, reason; } *rejections;
static size_t rejected, rejections_cap;

/* Keeps the list of unhandled rejections current, as QuickJS reports them. */
static void track_rejection(JSContext *ctx, JSValueConst promise, JSValueConst reason,
                            bool is_handled, void *opaque) {
  if (is_handled) {
    for (size_t i = 0; i < rejected; i++)
      if (JS_IsSameValue(ctx, rejections[i].promise, promise)) {
        rejections[i] = rejections[--rejected];
        return;
      }
    return;
  }
  if (rejected == rejections_cap) {
    size_t cap = rejections_cap ? rejections_cap * 2 : 16;
    struct rejection *bigger = realloc(rejections, cap * sizeof *bigger);
    if (bigger == NULL) return;
    rejections = bigger;
    rejections_cap = cap;
  }
  rejections[rejected].promise = JS_DupValue(ctx, promise);
  rejections[rejected].reason = JS_DupValue(ctx, reason);
  rejected++;
}

/* Runs queued promise jobs until none is left; then, like Node, a rejection still without a
   handler ends the run as an uncaught error. */
static void run_jobs(JSRuntime *rt, JSContext *ctx) {
  JSContext *job_ctx;
  int r;
  while ((r = JS_ExecutePendingJob(rt, &job_ctx)) != 0)
    if (r < 0) fail(job_ctx);
  if (rejected > 0) {
    JS_Throw(ctx, JS_DupValue(ctx, rejections[0].reason));
    fail(ctx);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: js PROGRAM [ARGS]\n", stderr);
    return 2;
  }
  JSRuntime *rt = JS_NewRuntime();
  if (rt == NULL) {
    fputs("js: cannot create runtime: not enough memory\n", stderr);
    return 1;
  }
  JS_SetMaxStackSize(rt, JS_STACK_BYTES);
  JS_SetHostPromiseRejectionTracker(rt, track_rejection, NULL);
  js_std_init_handlers(rt);
  JSContext *ctx = JS_NewContext(rt);
  if (ctx == NULL) {
    fputs("js: cannot create context: not enough memory\n", stderr);
    return 1;
  }
  js_std_add_helpers(ctx, argc - 1, argv + 1);
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue natives = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, natives, "readFile", JS_NewCFunction(ctx, read_file, "readFile", 1));
  JS_SetPropertyStr(ctx, natives, "write", JS_NewCFunction(ctx, write_fd, "write", 2));
  JS_SetPropertyStr(ctx, natives, "exit", JS_NewCFunction(ctx, exit_now, "exit", 1));
  JS_SetPropertyStr(ctx, global, "__hacrl", natives);

  /* The prelude evaluates to the function that runs the next due timer (false when none). */
  JSValue next_timer = JS_Eval(ctx, (const char *)prelude_js, prelude_js_len, "<prelude>",
                               JS_EVAL_TYPE_GLOBAL);
  if (JS_IsException(next_timer)) fail(ctx);

  FILE *f = fopen(argv[1], "rb");
  size_t len = 0;
  char *source = f ? slurp(f, &len) : NULL;
  if (source == NULL) {
    fprintf(stderr, "js: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);
#ifdef HACRL_TYPESCRIPT
  source = strip_types(ctx, rt, source, &len, argv[1]);
#endif
  /* Node's CommonJS wrapper, on the program's first line so line numbers stay the same. */
  static const char head[] =
      "(function (exports, require, module, __filename, __dirname) {";
  static const char tail[] = "\n})";
  size_t wrapped_len = sizeof head - 1 + len + sizeof tail - 1;
  char *wrapped = malloc(wrapped_len + 1);
  if (wrapped == NULL) {
    fputs("js: out of memory\n", stderr);
    return 1;
  }
  memcpy(wrapped, head, sizeof head - 1);
  memcpy(wrapped + sizeof head - 1, source, len);
  memcpy(wrapped + sizeof head - 1 + len, tail, sizeof tail);
  free(source);

  JSValue fn = JS_Eval(ctx, wrapped, wrapped_len, argv[1], JS_EVAL_TYPE_GLOBAL);
  free(wrapped);
  if (JS_IsException(fn)) fail(ctx);
  JSValue module = JS_GetPropertyStr(ctx, global, "module");
  JSValue args[5] = {
      JS_GetPropertyStr(ctx, module, "exports"), JS_GetPropertyStr(ctx, global, "require"),
      module, JS_NewString(ctx, argv[1]), JS_NewString(ctx, "."),
  };
  JSValue result = JS_Call(ctx, fn, JS_UNDEFINED, 5, args);
  if (JS_IsException(result)) fail(ctx);
  for (;;) {
    run_jobs(rt, ctx);
    JSValue more = JS_Call(ctx, next_timer, JS_UNDEFINED, 0, NULL);
    if (JS_IsException(more)) fail(ctx);
    if (!JS_ToBool(ctx, more)) break;
  }
  /* Like Node, a program that set process.exitCode ends with it. */
  int code = 0;
  JSValue process = JS_GetPropertyStr(ctx, global, "process");
  JSValue exit_code = JS_GetPropertyStr(ctx, process, "exitCode");
  if (!JS_IsUndefined(exit_code) && JS_ToInt32(ctx, &code, exit_code)) code = 1;
  fflush(stdout);
  return code;
}
