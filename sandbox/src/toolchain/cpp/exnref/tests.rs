//! Hand-assembled modules in each legacy shape, translated and run by wasmtime: the result is
//! what the legacy semantics give. And no input makes the translation panic.

use super::decode::write_u32;
use super::translate;

/// `(param i32)`, the one tag's type, and `(result i32)`, every function's.
const TYPES: &[u8] = &[0x60, 1, 0x7f, 0, 0x60, 0, 1, 0x7f];
const I32: u8 = 0x7f;
const TRY: u8 = 0x06;
const CATCH: u8 = 0x07;
const THROW: u8 = 0x08;
const RETHROW: u8 = 0x09;
const END: u8 = 0x0b;
const BR: u8 = 0x0c;
const CALL: u8 = 0x10;
const DELEGATE: u8 = 0x18;
const CATCH_ALL: u8 = 0x19;
const CONST: u8 = 0x41;
const ADD: u8 = 0x6a;
const BLOCK: u8 = 0x02;
const EMPTY: u8 = 0x40;
const DROP: u8 = 0x1a;

/// A module of `bodies` (each `() -> i32`, exported as `f0`, `f1`, …) and one tag, `(i32)`.
fn module(bodies: &[&[u8]]) -> Vec<u8> {
    let mut sections: Vec<(u8, Vec<u8>)> = Vec::new();
    let mut types = vec![2];
    types.extend(TYPES);
    sections.push((1, types));
    let mut funcs = vec![bodies.len() as u8];
    funcs.extend(std::iter::repeat_n(1, bodies.len()));
    sections.push((3, funcs));
    sections.push((13, vec![1, 0, 0]));
    let mut exports = vec![bodies.len() as u8];
    for i in 0..bodies.len() {
        exports.extend([2, b'f', b'0' + i as u8, 0, i as u8]);
    }
    sections.push((7, exports));
    let mut code = vec![bodies.len() as u8];
    for body in bodies {
        let mut b = vec![0];
        b.extend(*body);
        b.push(END);
        write_u32(&mut code, b.len() as u32);
        code.extend(b);
    }
    sections.push((10, code));
    let mut out = b"\0asm\x01\0\0\0".to_vec();
    for (id, contents) in sections {
        out.push(id);
        write_u32(&mut out, contents.len() as u32);
        out.extend(contents);
    }
    out
}

/// Translates `bodies`' module and calls `f0`.
fn run(bodies: &[&[u8]]) -> i32 {
    let wasm = translate(&module(bodies)).expect("translates");
    let engine = wasmtime::Engine::default();
    let module = wasmtime::Module::new(&engine, &wasm).expect("valid after translation");
    let mut store = wasmtime::Store::new(&engine, ());
    let instance = wasmtime::Instance::new(&mut store, &module, &[]).expect("instantiates");
    let f = instance
        .get_typed_func::<(), i32>(&mut store, "f0")
        .expect("exported");
    f.call(&mut store, ()).expect("returns")
}

#[test]
fn a_catch_receives_the_payload() {
    let body = [TRY, I32, CONST, 7, THROW, 0, CATCH, 0, END];
    assert_eq!(run(&[&body]), 7);
}

#[test]
fn a_rethrow_from_catch_all_reaches_the_outer_catch() {
    let body = [
        TRY, I32, TRY, EMPTY, CONST, 5, THROW, 0, CATCH_ALL, RETHROW, 0, END, CONST, 0, CATCH, 0,
        CONST, 50, ADD, END,
    ];
    assert_eq!(run(&[&body]), 55);
}

#[test]
fn a_delegate_skips_the_try_in_between() {
    // The inner try-delegate names label 1 from outside itself: the outer try, whose catch
    // adds 1000; the catch_all in between (which would give 1) never sees the exception.
    let body = [
        TRY, I32, TRY, I32, TRY, EMPTY, CONST, 9, THROW, 0, DELEGATE, 1, CONST, 0, CATCH_ALL,
        CONST, 1, END, CATCH, 0, CONST, 0xe8, 0x07, ADD, END,
    ];
    assert_eq!(run(&[&body]), 1009);
}

#[test]
fn a_delegate_to_the_function_label_throws_to_the_caller() {
    let caller = [TRY, I32, CALL, 1, CATCH, 0, END];
    let callee = [
        TRY, I32, TRY, EMPTY, CONST, 3, THROW, 0, DELEGATE, 1, CONST, 0, CATCH_ALL, CONST, 1, END,
    ];
    assert_eq!(run(&[&caller, &callee]), 3);
}

#[test]
fn branches_out_of_a_try_and_its_handlers_keep_their_targets() {
    // From the body, past the handlers; then from a handler, past the rest of it.
    let body = [
        BLOCK, I32, TRY, I32, CONST, 4, BR, 1, CATCH_ALL, CONST, 0, END, END, DROP, BLOCK, I32,
        TRY, I32, CONST, 6, THROW, 0, CATCH, 0, BR, 1, CATCH_ALL, CONST, 0, END, END,
    ];
    assert_eq!(run(&[&body]), 6);
}

#[test]
fn a_module_without_legacy_exceptions_is_unchanged() {
    let wasm = module(&[&[CONST, 1]]);
    assert_eq!(translate(&wasm).unwrap(), wasm);
}

#[test]
fn no_truncation_or_corruption_panics() {
    let wasm = module(&[
        &[
            TRY, I32, TRY, EMPTY, CONST, 5, THROW, 0, CATCH_ALL, RETHROW, 0, END, CONST, 0, CATCH,
            0, END,
        ],
        &[
            TRY, I32, TRY, EMPTY, CONST, 3, THROW, 0, DELEGATE, 1, CONST, 0, CATCH_ALL, CONST, 1,
            END,
        ],
    ]);
    for len in 0..wasm.len() {
        let _ = translate(&wasm[..len]);
    }
    for at in 8..wasm.len() {
        for byte in [0x00, 0x06, 0x09, 0x0b, 0x18, 0x7f, 0xff] {
            let mut bad = wasm.clone();
            bad[at] = byte;
            let _ = translate(&bad);
        }
    }
}
