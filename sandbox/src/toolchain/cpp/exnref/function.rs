//! One function body's translation (the shapes are in the [parent](super)'s documentation).
//! A first pass finds each `try`'s clauses, which clauses rethrow, and where each `delegate`
//! goes; the second writes the new body, keeping, for every old label, the new label that
//! branches to it now land on.

use super::decode::{self, BlockType, Error, Inst, Op, Reader, write_blocktype, write_u32};
use super::{EXNREF, Module};

const BLOCK: u8 = 0x02;
const END: u8 = 0x0b;
const BR: u8 = 0x0c;
const RETURN: u8 = 0x0f;
const THROW_REF: u8 = 0x0a;
const TRY_TABLE: u8 = 0x1f;
const LOCAL_GET: u8 = 0x20;
const LOCAL_SET: u8 = 0x21;

/// One catch clause of a legacy `try`.
struct Clause {
    /// The tag it catches; `None` for `catch_all`.
    tag: Option<u32>,
    /// The local keeping its exnref, when a `rethrow` needs it.
    local: Option<u32>,
}

/// Where a `delegate` sends its exception.
#[derive(Clone, Copy)]
enum Target {
    /// Into the body of the `try` with this number.
    Try(usize),
    /// Out of the function.
    Caller,
}

/// What the first pass learns of one `try`, numbered in order of appearance.
#[derive(Default)]
struct TryInfo {
    clauses: Vec<Clause>,
    /// Where it delegates, for a `try … delegate`.
    delegate: Option<Target>,
    /// Whether a `delegate` sends exceptions into its body.
    delegated_to: bool,
}

/// An old label, as each pass tracks it.
#[derive(Clone, Copy)]
enum Frame {
    /// The function's own label.
    Func,
    /// `block`, `loop` or `if`.
    Plain,
    /// A `try`: its number and, once in a handler, that clause's index.
    Try(usize, Option<usize>),
}

/// The translated body, or `None` when it has no legacy exception instructions.
pub(super) fn translate(
    module: &mut Module,
    body: &[u8],
    params: usize,
) -> Result<Option<Vec<u8>>, Error> {
    let mut r = Reader::new(body);
    let mut locals = 0u64;
    let groups = r.u32()?;
    for _ in 0..groups {
        locals += u64::from(r.u32()?);
        decode::valtype(&mut r)?;
    }
    let locals_end = r.pos;
    let code = decode::instructions(&mut r)?;
    if !code.iter().any(|i| i.op.is_legacy()) {
        return Ok(None);
    }
    let (mut tries, to_caller) = analyse(&code)?;
    let first = u32::try_from(params as u64 + locals).map_err(|_| "too many locals")?;
    let mut added = 0u32;
    for clause in tries.iter_mut().flat_map(|t| t.clauses.iter_mut()) {
        if clause.local.is_some() {
            clause.local = Some(first.checked_add(added).ok_or("too many locals")?);
            added += 1;
        }
    }
    let mut out = Vec::with_capacity(body.len() + body.len() / 4);
    if added > 0 {
        write_u32(&mut out, groups.checked_add(1).ok_or("too many locals")?);
        out.extend(&body[varint_len(body)?..locals_end]);
        write_u32(&mut out, added);
        out.push(EXNREF);
    } else {
        out.extend(&body[..locals_end]);
    }
    Writer {
        module,
        tries: &tries,
        body,
        out: &mut out,
        frames: Vec::new(),
        labels: 1,
        caller_block: None,
    }
    .run(&code, to_caller)?;
    Ok(Some(out))
}

/// The length of the LEB128 number at the start of `bytes`.
fn varint_len(bytes: &[u8]) -> Result<usize, Error> {
    let mut r = Reader::new(bytes);
    r.u32()?;
    Ok(r.pos)
}

/// The first pass: every `try`'s clauses, the clauses a `rethrow` names, every `delegate`'s
/// target; and whether one delegates to the caller.
fn analyse(code: &[Inst]) -> Result<(Vec<TryInfo>, bool), Error> {
    let mut tries: Vec<TryInfo> = Vec::new();
    let mut frames = vec![Frame::Func];
    let mut to_caller = false;
    for (at, inst) in code.iter().enumerate() {
        if frames.is_empty() {
            return Err("instructions after the function's end".into());
        }
        match inst.op {
            Op::Open => frames.push(Frame::Plain),
            Op::Try(_) => {
                frames.push(Frame::Try(tries.len(), None));
                tries.push(TryInfo::default());
            }
            Op::Catch(_) | Op::CatchAll => {
                let Some(Frame::Try(id, clause)) = frames.last_mut() else {
                    return Err("catch outside a try".into());
                };
                let info = &mut tries[*id];
                if info.clauses.last().is_some_and(|c| c.tag.is_none()) {
                    return Err("catch after catch_all".into());
                }
                info.clauses.push(Clause {
                    tag: match inst.op {
                        Op::Catch(tag) => Some(tag),
                        _ => None,
                    },
                    local: None,
                });
                *clause = Some(info.clauses.len() - 1);
            }
            Op::Delegate(label) => {
                let Some(Frame::Try(id, None)) = frames.pop() else {
                    return Err("delegate outside a try's body".into());
                };
                let target = delegate_target(&frames, label)?;
                match target {
                    Target::Try(t) => tries[t].delegated_to = true,
                    Target::Caller => to_caller = true,
                }
                tries[id].delegate = Some(target);
            }
            Op::Rethrow(label) => {
                let Some(Frame::Try(id, Some(clause))) = frame(&frames, label) else {
                    return Err(format!("rethrow {label} names no catch clause (at {at})"));
                };
                tries[id].clauses[clause].local = Some(0);
            }
            Op::End => {
                frames.pop();
            }
            _ => {}
        }
    }
    if !frames.is_empty() {
        return Err("function body without its end".into());
    }
    Ok((tries, to_caller))
}

/// The frame `label` names, counting from the innermost.
fn frame(frames: &[Frame], label: u32) -> Option<Frame> {
    let at = frames.len().checked_sub(1)?.checked_sub(label as usize)?;
    frames.get(at).copied()
}

/// Where `delegate label` sends an exception: into the innermost `try` body at or around the
/// label, else to the caller.
fn delegate_target(frames: &[Frame], label: u32) -> Result<Target, Error> {
    let at = (frames.len().checked_sub(1))
        .and_then(|top| top.checked_sub(label as usize))
        .ok_or_else(|| format!("delegate {label} names no label"))?;
    Ok(frames[..=at]
        .iter()
        .rev()
        .find_map(|f| match f {
            Frame::Try(id, None) => Some(Target::Try(*id)),
            _ => None,
        })
        .unwrap_or(Target::Caller))
}

/// An old label during the second pass, and the new label its branches now land on.
struct Placed {
    frame: Frame,
    /// The new label (its index from the outermost) branches to it go to.
    target: usize,
    /// For a `try` others delegate to: the new block whose end rethrows inside it.
    rethrow_block: Option<usize>,
}

/// The second pass's state.
struct Writer<'a> {
    module: &'a mut Module,
    tries: &'a [TryInfo],
    body: &'a [u8],
    out: &'a mut Vec<u8>,
    frames: Vec<Placed>,
    /// How many new labels are open (the function's own is the first).
    labels: usize,
    /// The new block around the whole body that rethrows to the caller, when one is needed.
    caller_block: Option<usize>,
}

impl Writer<'_> {
    fn run(mut self, code: &[Inst], to_caller: bool) -> Result<(), Error> {
        self.frames.push(Placed {
            frame: Frame::Func,
            target: 0,
            rethrow_block: None,
        });
        if to_caller {
            self.open(BlockType::Value(EXNREF));
            self.caller_block = Some(1);
        }
        let mut next_try = 0;
        for inst in code {
            match &inst.op {
                Op::Open => {
                    self.copy(inst);
                    self.push(Frame::Plain, self.labels, None);
                    self.labels += 1;
                }
                Op::Try(bt) => {
                    self.enter_try(next_try, *bt)?;
                    next_try += 1;
                }
                Op::Catch(_) | Op::CatchAll => self.enter_clause()?,
                Op::Delegate(_) => {
                    let placed = self.frames.pop().ok_or("delegate outside a try")?;
                    self.close_rethrow_block(&placed);
                    self.close();
                }
                Op::Rethrow(label) => {
                    let Some(Frame::Try(id, Some(clause))) = self.frame(*label) else {
                        return Err("rethrow names no catch clause".into());
                    };
                    let local = self.tries[id].clauses[clause]
                        .local
                        .ok_or("no exnref kept")?;
                    self.out.push(LOCAL_GET);
                    write_u32(self.out, local);
                    self.out.push(THROW_REF);
                }
                Op::Br(label) | Op::BrIf(label) => {
                    self.out.push(self.body[inst.start]);
                    let depth = self.depth(*label)?;
                    write_u32(self.out, depth);
                }
                Op::BrTable(labels) => {
                    self.out.push(self.body[inst.start]);
                    write_u32(self.out, (labels.len() - 1) as u32);
                    for label in labels {
                        let depth = self.depth(*label)?;
                        write_u32(self.out, depth);
                    }
                }
                Op::End => self.end(inst)?,
                Op::Else | Op::Other => self.copy(inst),
            }
        }
        Ok(())
    }

    /// A legacy `try`: the blocks its clauses land in, its `try_table`, and the block a
    /// `delegate` into its body rethrows from.
    fn enter_try(&mut self, id: usize, bt: BlockType) -> Result<(), Error> {
        if let BlockType::Index(i) = bt
            && !self.module.func_type(i)?.params.is_empty()
        {
            return Err("a try with parameters".into());
        }
        let info = &self.tries[id];
        let mut table = Vec::new();
        let target;
        if let Some(delegate) = info.delegate {
            let block = match delegate {
                Target::Caller => self.caller_block,
                Target::Try(t) => self.frames.iter().find_map(|p| match p.frame {
                    Frame::Try(i, None) if i == t => p.rethrow_block,
                    _ => None,
                }),
            }
            .ok_or("delegate target not open")?;
            table.push(0x03);
            write_u32(&mut table, self.relative(block)?);
            target = self.labels;
            self.write_try_table(bt, 1, &table);
        } else if info.clauses.is_empty() {
            target = self.labels;
            self.write_try_table(bt, 0, &table);
        } else {
            target = self.labels;
            self.open(bt);
            for clause in info.clauses.iter().rev() {
                let mut results = match clause.tag {
                    Some(tag) => {
                        let ty = *self.module.tags.get(tag as usize).ok_or("no such tag")?;
                        self.module.func_type(ty)?.params.clone()
                    }
                    None => Vec::new(),
                };
                if clause.local.is_some() {
                    results.push(EXNREF);
                }
                let block = self.module.results_block(results);
                self.open(block);
            }
            for (depth, clause) in info.clauses.iter().enumerate() {
                let kind = match (clause.tag, clause.local) {
                    (Some(_), None) => 0x00,
                    (Some(_), Some(_)) => 0x01,
                    (None, None) => 0x02,
                    (None, Some(_)) => 0x03,
                };
                table.push(kind);
                if let Some(tag) = clause.tag {
                    write_u32(&mut table, tag);
                }
                write_u32(&mut table, depth as u32);
            }
            self.write_try_table(bt, info.clauses.len(), &table);
        }
        let mut rethrow_block = None;
        if info.delegated_to {
            self.open(bt);
            rethrow_block = Some(self.labels);
            self.open(BlockType::Value(EXNREF));
        }
        self.push(Frame::Try(id, None), target, rethrow_block);
        Ok(())
    }

    /// The start of a catch clause: closes the body (first clause) or the previous handler.
    fn enter_clause(&mut self) -> Result<(), Error> {
        let placed = self.frames.pop().ok_or("catch outside a try")?;
        let Frame::Try(id, clause) = placed.frame else {
            return Err("catch outside a try".into());
        };
        let next = clause.map_or(0, |c| c + 1);
        if clause.is_none() {
            self.close_rethrow_block(&placed);
            self.close();
        }
        self.out.push(BR);
        let depth = self.relative(placed.target)?;
        write_u32(self.out, depth);
        self.close();
        if let Some(local) = self.tries[id].clauses.get(next).and_then(|c| c.local) {
            self.out.push(LOCAL_SET);
            write_u32(self.out, local);
        }
        self.push(Frame::Try(id, Some(next)), placed.target, None);
        Ok(())
    }

    /// An `end`: of a block, a `try`, or the function.
    fn end(&mut self, inst: &Inst) -> Result<(), Error> {
        let placed = self.frames.pop().ok_or("end without a block")?;
        match placed.frame {
            Frame::Plain | Frame::Try(_, Some(_)) => self.close(),
            Frame::Try(_, None) => {
                self.close_rethrow_block(&placed);
                self.close();
            }
            Frame::Func => {
                if self.caller_block.is_some() {
                    self.out.extend([RETURN, END, THROW_REF]);
                }
                self.copy(inst);
            }
        }
        Ok(())
    }

    /// Closes the blocks a `delegate` into this `try`'s body rethrows from; the body's results
    /// skip the rethrow.
    fn close_rethrow_block(&mut self, placed: &Placed) {
        if placed.rethrow_block.is_some() {
            self.out.extend([BR, 1]);
            self.close();
            self.out.push(THROW_REF);
            self.close();
        }
    }

    fn write_try_table(&mut self, bt: BlockType, clauses: usize, table: &[u8]) {
        self.out.push(TRY_TABLE);
        write_blocktype(self.out, bt);
        write_u32(self.out, clauses as u32);
        self.out.extend(table);
        self.labels += 1;
    }

    /// Opens a new `block`.
    fn open(&mut self, bt: BlockType) {
        self.out.push(BLOCK);
        write_blocktype(self.out, bt);
        self.labels += 1;
    }

    /// Closes the innermost new label.
    fn close(&mut self) {
        self.out.push(END);
        self.labels = self.labels.saturating_sub(1);
    }

    /// The depth, from the innermost new label, of the new label at `index`.
    fn relative(&self, index: usize) -> Result<u32, Error> {
        (self.labels.checked_sub(1))
            .and_then(|top| top.checked_sub(index))
            .map(|d| d as u32)
            .ok_or_else(|| "label structure out of step".into())
    }

    fn push(&mut self, frame: Frame, target: usize, rethrow_block: Option<usize>) {
        self.frames.push(Placed {
            frame,
            target,
            rethrow_block,
        });
    }

    fn copy(&mut self, inst: &Inst) {
        self.out.extend(&self.body[inst.start..inst.end]);
    }

    fn frame(&self, label: u32) -> Option<Frame> {
        let at = self
            .frames
            .len()
            .checked_sub(1)?
            .checked_sub(label as usize)?;
        self.frames.get(at).map(|p| p.frame)
    }

    /// The new depth of old label `label`.
    fn depth(&self, label: u32) -> Result<u32, Error> {
        let at = (self.frames.len().checked_sub(1))
            .and_then(|top| top.checked_sub(label as usize))
            .ok_or_else(|| format!("branch {label} names no label"))?;
        self.relative(self.frames[at].target)
    }
}
