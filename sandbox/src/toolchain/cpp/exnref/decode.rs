//! Just enough of the wasm binary format to walk a function body instruction by instruction:
//! LEB128 numbers, value and block types, and every instruction's immediates, so the
//! translation can copy what it does not change byte for byte. The input is a compiled
//! untrusted program: every read is bounds-checked and a malformed byte is an error, never a
//! panic.

/// What went wrong reading or translating a module.
pub(crate) type Error = String;

/// A cursor over bytes.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    /// Offset of the next byte.
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    /// Whether every byte has been read.
    pub(crate) fn done(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The next byte.
    pub(crate) fn byte(&mut self) -> Result<u8, Error> {
        let b = *self.bytes.get(self.pos).ok_or("unexpected end of module")?;
        self.pos += 1;
        Ok(b)
    }

    /// The next byte, left unread.
    pub(crate) fn peek(&self) -> Result<u8, Error> {
        self.bytes
            .get(self.pos)
            .copied()
            .ok_or_else(|| "unexpected end of module".into())
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).ok_or("length overflow")?;
        let slice = self
            .bytes
            .get(self.pos..end)
            .ok_or("unexpected end of module")?;
        self.pos = end;
        Ok(slice)
    }

    /// An unsigned LEB128 number of at most `bits` bits.
    fn unsigned(&mut self, bits: u32) -> Result<u64, Error> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte()?;
            if shift >= bits {
                return Err("LEB128 number too long".into());
            }
            value |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
    }

    /// A signed LEB128 number of at most `bits` bits (only its encoding is checked).
    fn signed(&mut self, bits: u32) -> Result<(), Error> {
        self.unsigned(bits).map(|_| ())
    }

    /// A `u32` in LEB128.
    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        u32::try_from(self.unsigned(32)?).map_err(|_| "u32 out of range".into())
    }

    /// A count or length, as a `usize`.
    pub(crate) fn len(&mut self) -> Result<usize, Error> {
        Ok(self.u32()? as usize)
    }

    /// A length-prefixed byte string (a name).
    pub(crate) fn name(&mut self) -> Result<&'a [u8], Error> {
        let n = self.len()?;
        self.take(n)
    }

    /// Limits of a table or memory.
    pub(crate) fn limits(&mut self) -> Result<(), Error> {
        let flags = self.byte()?;
        self.unsigned(64)?;
        if flags & 1 != 0 {
            self.unsigned(64)?;
        }
        Ok(())
    }
}

/// A value type: its one-byte encoding. Typed references (`ref null? ht`), which clang never
/// emits, are refused.
pub(crate) fn valtype(r: &mut Reader) -> Result<u8, Error> {
    match r.byte()? {
        b @ (0x7b..=0x7f | 0x70 | 0x6f | 0x69) => Ok(b),
        b => Err(format!("unsupported value type 0x{b:02x}")),
    }
}

/// A block's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockType {
    /// No parameters, no results.
    Empty,
    /// No parameters, one result of this value type.
    Value(u8),
    /// The function type at this index.
    Index(u32),
}

/// A block type.
pub(crate) fn blocktype(r: &mut Reader) -> Result<BlockType, Error> {
    let b = r.peek()?;
    if b == 0x40 {
        r.pos += 1;
        return Ok(BlockType::Empty);
    }
    if b & 0xc0 == 0x40 {
        return valtype(r).map(BlockType::Value);
    }
    // A non-negative s33: its bits are those of the unsigned reading.
    let index = r.unsigned(33)?;
    u32::try_from(index)
        .map(BlockType::Index)
        .map_err(|_| "block type index out of range".into())
}

/// An instruction the translation looks at; everything else is [`Op::Other`], copied as is.
#[derive(Debug)]
pub(crate) enum Op {
    /// `block`, `loop` or `if`: a label, copied as is.
    Open,
    Else,
    End,
    Try(BlockType),
    Catch(u32),
    CatchAll,
    Delegate(u32),
    Rethrow(u32),
    Br(u32),
    BrIf(u32),
    BrTable(Vec<u32>),
    Other,
}

impl Op {
    /// Whether this is one of the legacy exception instructions.
    pub(crate) fn is_legacy(&self) -> bool {
        matches!(
            self,
            Op::Try(_) | Op::Catch(_) | Op::CatchAll | Op::Delegate(_) | Op::Rethrow(_)
        )
    }
}

/// One instruction: what it is and where its bytes are in the body.
#[derive(Debug)]
pub(crate) struct Inst {
    pub(crate) op: Op,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// A memory access's alignment (with a memory index when bit 6 says so) and offset.
fn memarg(r: &mut Reader) -> Result<(), Error> {
    if r.u32()? & 0x40 != 0 {
        r.u32()?;
    }
    r.unsigned(64).map(|_| ())
}

/// Decodes the instructions from the reader's position to the end of the body.
pub(crate) fn instructions(r: &mut Reader) -> Result<Vec<Inst>, Error> {
    let mut out = Vec::new();
    while !r.done() {
        let start = r.pos;
        let op = instruction(r)?;
        out.push(Inst {
            op,
            start,
            end: r.pos,
        });
    }
    Ok(out)
}

/// One instruction and its immediates.
fn instruction(r: &mut Reader) -> Result<Op, Error> {
    let code = r.byte()?;
    let op = match code {
        0x02..=0x04 => {
            blocktype(r)?;
            Op::Open
        }
        0x05 => Op::Else,
        0x06 => Op::Try(blocktype(r)?),
        0x07 => Op::Catch(r.u32()?),
        0x09 => Op::Rethrow(r.u32()?),
        0x0b => Op::End,
        0x0c => Op::Br(r.u32()?),
        0x0d => Op::BrIf(r.u32()?),
        0x0e => {
            let n = r.len()?;
            let mut labels = Vec::new();
            for _ in 0..=n {
                labels.push(r.u32()?);
            }
            Op::BrTable(labels)
        }
        0x18 => Op::Delegate(r.u32()?),
        0x19 => Op::CatchAll,
        // unreachable, nop, throw_ref, return, drop, select; numeric; ref.is_null, ref.eq,
        // ref.as_non_null.
        0x00 | 0x01 | 0x0a | 0x0f | 0x1a | 0x1b | 0x45..=0xc4 | 0xd1 | 0xd3 | 0xd4 => Op::Other,
        // throw, call, return_call, call_ref, return_call_ref, local/global/table get and set,
        // memory.size/grow, ref.func.
        0x08 | 0x10 | 0x12 | 0x14 | 0x15 | 0x20..=0x26 | 0x3f | 0x40 | 0xd2 => {
            r.u32()?;
            Op::Other
        }
        0x11 | 0x13 => {
            r.u32()?;
            r.u32()?;
            Op::Other
        }
        0x1c => {
            for _ in 0..r.len()? {
                valtype(r)?;
            }
            Op::Other
        }
        0x28..=0x3e => {
            memarg(r)?;
            Op::Other
        }
        0x41 => {
            r.signed(32)?;
            Op::Other
        }
        0x42 => {
            r.signed(64)?;
            Op::Other
        }
        0x43 => {
            r.take(4)?;
            Op::Other
        }
        0x44 => {
            r.take(8)?;
            Op::Other
        }
        0xd0 => {
            r.signed(33)?;
            Op::Other
        }
        0xfc => {
            prefixed_misc(r)?;
            Op::Other
        }
        0xfd => {
            prefixed_simd(r)?;
            Op::Other
        }
        0xfe => {
            if r.u32()? == 0x03 {
                r.byte()?;
            } else {
                memarg(r)?;
            }
            Op::Other
        }
        // try_table, br_on_null and the GC instructions: not in clang 19's output, and their
        // labels would need renumbering.
        b => return Err(format!("unsupported instruction 0x{b:02x}")),
    };
    Ok(op)
}

/// The 0xfc instructions: saturating truncations, bulk memory and tables.
fn prefixed_misc(r: &mut Reader) -> Result<(), Error> {
    let immediates = match r.u32()? {
        0..=7 => 0,
        9 | 11 | 13 | 15..=17 => 1,
        8 | 10 | 12 | 14 => 2,
        n => return Err(format!("unsupported instruction 0xfc {n}")),
    };
    for _ in 0..immediates {
        r.u32()?;
    }
    Ok(())
}

/// The 0xfd (SIMD) instructions.
fn prefixed_simd(r: &mut Reader) -> Result<(), Error> {
    match r.u32()? {
        0..=11 | 92 | 93 => memarg(r),
        12 | 13 => r.take(16).map(|_| ()),
        21..=34 => r.byte().map(|_| ()),
        84..=91 => {
            memarg(r)?;
            r.byte().map(|_| ())
        }
        _ => Ok(()),
    }
}

/// Appends `value` as an unsigned LEB128 number.
pub(crate) fn write_u32(out: &mut Vec<u8>, mut value: u32) {
    loop {
        let b = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends a block type.
pub(crate) fn write_blocktype(out: &mut Vec<u8>, bt: BlockType) {
    match bt {
        BlockType::Empty => out.push(0x40),
        BlockType::Value(v) => out.push(v),
        // A non-negative s33 below 2³²: the same bytes as the u32 with one more zero bit
        // group when its top bit would read as a sign.
        BlockType::Index(i) => {
            let mut value = u64::from(i);
            loop {
                let b = (value & 0x7f) as u8;
                value >>= 7;
                if value == 0 && b & 0x40 == 0 {
                    out.push(b);
                    return;
                }
                out.push(b | 0x80);
            }
        }
    }
}
