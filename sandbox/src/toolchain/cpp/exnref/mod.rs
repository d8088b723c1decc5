//! Rewrites a module's legacy wasm exception instructions (`try`, `catch`, `catch_all`,
//! `delegate`, `rethrow`: what clang 19 emits for `-fwasm-exceptions`) into the standard
//! exception-handling proposal's (`try_table`, `throw_ref`, `exnref`): the only one wasmtime 48
//! runs. clang 19 has no switch for the standard encoding (LLVM 20 has), so the sandbox
//! translates each linked C++ program once, before it is compiled to native code.
//!
//! A `try` with catch clauses `c₁ … cₙ` and type `bt` becomes
//!
//! ```text
//! block bt                                  ;; the old try's label: branches to it land here
//!   block (result params(cₙ) exnref?)
//!     …
//!       block (result params(c₁) exnref?)
//!         try_table bt (catch c₁ 0) … (catch cₙ n-1)
//!           body
//!         end
//!         br n                              ;; the body's results, past every handler
//!       end
//!       local.set $exn₁?                    ;; only a clause that rethrows keeps its exnref
//!       handler₁
//!       br n-1
//!     …
//!   end
//!   handlerₙ
//! end
//! ```
//!
//! `rethrow l` becomes `local.get $exn; throw_ref`. `try … delegate l` becomes a `try_table`
//! whose `catch_all_ref` jumps to a block wrapped around the body of the try that `l` delegates
//! to (or around the whole function, for the caller), where a `throw_ref` throws it again
//! inside that try. Every branch depth is recomputed for the blocks added.

mod decode;
mod function;
#[cfg(test)]
mod tests;

use decode::{BlockType, Error, Reader, write_u32};

/// The section ids this reads or rewrites.
const TYPE: u8 = 1;
const IMPORT: u8 = 2;
const FUNCTION: u8 = 3;
const CODE: u8 = 10;
const TAG: u8 = 13;

/// `exnref`'s value type.
const EXNREF: u8 = 0x69;

/// A function type: its parameter and result value types.
#[derive(Clone, PartialEq, Eq)]
struct FuncType {
    params: Vec<u8>,
    results: Vec<u8>,
}

/// What the translation needs of the module outside the code section.
#[derive(Default)]
struct Module {
    types: Vec<FuncType>,
    /// Each function's type index, imported ones first.
    defined_funcs: Vec<u32>,
    /// Each tag's type index, imported ones first.
    tags: Vec<u32>,
    /// Function types added for the blocks the translation introduces.
    added: Vec<FuncType>,
}

/// `wasm` with its legacy exception instructions replaced; the same bytes when it has none.
pub(crate) fn translate(wasm: &[u8]) -> Result<Vec<u8>, Error> {
    let mut r = Reader::new(wasm);
    if r.take(8)? != b"\0asm\x01\0\0\0" {
        return Err("not a wasm module".into());
    }
    let mut sections = Vec::new();
    while !r.done() {
        let id = r.byte()?;
        let size = r.len()?;
        let start = r.pos;
        r.take(size)?;
        sections.push((id, start, start + size));
    }
    let mut module = Module::default();
    for &(id, start, end) in &sections {
        let mut s = Reader::new(&wasm[start..end]);
        match id {
            TYPE => module.read_types(&mut s)?,
            IMPORT => module.read_imports(&mut s)?,
            FUNCTION => {
                for _ in 0..s.len()? {
                    module.defined_funcs.push(s.u32()?);
                }
            }
            TAG => {
                for _ in 0..s.len()? {
                    s.byte()?;
                    module.tags.push(s.u32()?);
                }
            }
            _ => {}
        }
    }
    let mut code = None;
    for &(id, start, end) in &sections {
        if id == CODE {
            code = module.translate_code(&wasm[start..end])?;
        }
    }
    let Some(mut code) = code else {
        return Ok(wasm.to_vec());
    };
    let mut out = wasm[..8].to_vec();
    for &(id, start, end) in &sections {
        let contents = match id {
            TYPE if !module.added.is_empty() => module.type_section(&wasm[start..end])?,
            CODE => std::mem::take(&mut code),
            _ => wasm[start..end].to_vec(),
        };
        out.push(id);
        write_u32(
            &mut out,
            u32::try_from(contents.len()).map_err(|e| e.to_string())?,
        );
        out.extend(contents);
    }
    Ok(out)
}

impl Module {
    /// The type section: function types only (clang emits no others).
    fn read_types(&mut self, s: &mut Reader) -> Result<(), Error> {
        for _ in 0..s.len()? {
            if s.byte()? != 0x60 {
                return Err("unsupported type (not a function type)".into());
            }
            let read = |s: &mut Reader| -> Result<Vec<u8>, Error> {
                (0..s.len()?).map(|_| decode::valtype(s)).collect()
            };
            let params = read(s)?;
            let results = read(s)?;
            self.types.push(FuncType { params, results });
        }
        Ok(())
    }

    /// The imports: imported functions and tags take the first indices.
    fn read_imports(&mut self, s: &mut Reader) -> Result<(), Error> {
        for _ in 0..s.len()? {
            s.name()?;
            s.name()?;
            match s.byte()? {
                0x00 => {
                    s.u32()?;
                }
                0x01 => {
                    decode::valtype(s)?;
                    s.limits()?;
                }
                0x02 => s.limits()?,
                0x03 => {
                    decode::valtype(s)?;
                    s.byte()?;
                }
                0x04 => {
                    s.byte()?;
                    self.tags.push(s.u32()?);
                }
                k => return Err(format!("unsupported import kind {k}")),
            }
        }
        Ok(())
    }

    /// The type section with the added types after the existing ones.
    fn type_section(&self, section: &[u8]) -> Result<Vec<u8>, Error> {
        let mut s = Reader::new(section);
        let count = s.u32()?;
        let total = count
            .checked_add(u32::try_from(self.added.len()).map_err(|e| e.to_string())?)
            .ok_or("too many types")?;
        let mut out = Vec::new();
        write_u32(&mut out, total);
        out.extend(&section[s.pos..]);
        for t in &self.added {
            out.push(0x60);
            for list in [&t.params, &t.results] {
                write_u32(&mut out, list.len() as u32);
                out.extend(list);
            }
        }
        Ok(out)
    }

    /// The function type at `index`, existing or added.
    fn func_type(&self, index: u32) -> Result<&FuncType, Error> {
        let i = index as usize;
        self.types
            .get(i)
            .or_else(|| self.added.get(i.wrapping_sub(self.types.len())))
            .ok_or_else(|| format!("type index {index} out of range"))
    }

    /// A block type yielding `results` and taking nothing.
    fn results_block(&mut self, results: Vec<u8>) -> BlockType {
        match results.as_slice() {
            [] => BlockType::Empty,
            [one] => BlockType::Value(*one),
            _ => {
                let wanted = FuncType {
                    params: Vec::new(),
                    results,
                };
                let at = match self.added.iter().position(|t| *t == wanted) {
                    Some(i) => i,
                    None => {
                        self.added.push(wanted);
                        self.added.len() - 1
                    }
                };
                BlockType::Index((self.types.len() + at) as u32)
            }
        }
    }

    /// The code section translated, or `None` when no function uses legacy exceptions.
    fn translate_code(&mut self, section: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        let mut s = Reader::new(section);
        let count = s.len()?;
        let mut bodies = Vec::with_capacity(count);
        let mut changed = false;
        for i in 0..count {
            let size = s.len()?;
            let body = s.take(size)?;
            let type_index = *self
                .defined_funcs
                .get(i)
                .ok_or("more bodies than functions")?;
            let params = self.func_type(type_index)?.params.len();
            match function::translate(self, body, params)? {
                Some(new) => {
                    changed = true;
                    bodies.push(std::borrow::Cow::Owned(new));
                }
                None => bodies.push(std::borrow::Cow::Borrowed(body)),
            }
        }
        if !changed {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(section.len() + section.len() / 8);
        write_u32(&mut out, count as u32);
        for body in bodies {
            write_u32(
                &mut out,
                u32::try_from(body.len()).map_err(|e| e.to_string())?,
            );
            out.extend(body.iter());
        }
        Ok(Some(out))
    }
}
