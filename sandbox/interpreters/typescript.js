// The TypeScript entry of the type stripper. The host (sandbox/src/interpreters/typescript.rs)
// evaluates it right after sucrase's bundle (typescript-strip.js, from 24-typescript.sh), inside
// one function, with `sucrase` the bundle's exports; its value is the function ts.wasm
// (js_main.c built with HACRL_TYPESCRIPT) calls with the program's source and file name.
(function (sucrase) {
  'use strict';
  // Types, enums, parameter properties, `as`, `!` and `satisfies` go; ES module syntax becomes
  // CommonJS (`import readline from 'readline'` is require('readline'), which the prelude
  // provides). Everything else is left to QuickJS, which runs ES2023 as it is.
  const options = { transforms: ['typescript', 'imports'], disableESTransforms: true };
  return function strip(source, file) {
    try {
      return sucrase.transform(source, options).code;
    } catch (e) {
      // A syntax error: shown as QuickJS shows one in JavaScript, at the program's line.
      if (e instanceof SyntaxError && e.loc) {
        e.stack = '    at ' + file + ':' + e.loc.line + ':' + e.loc.column + '\n';
      }
      throw e;
    }
  };
})
