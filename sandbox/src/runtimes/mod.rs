//! Languages run by a runtime loaded once at start-up, with no build step: Python on three
//! CPython builds ([`python`], which picks one per program, and [`scientific`], CPython 3.15 with
//! numpy, pandas and the rest) and the [`interpreters`] (Lua, SQL, JavaScript, TypeScript, Ruby).
//! Each loads its modules through the engine's cache (`modules`) and runs a program through the
//! shared `instance` layer.

pub(crate) mod interpreters;
pub(crate) mod python;
pub(crate) mod scientific;
