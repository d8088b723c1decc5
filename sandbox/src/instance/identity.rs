//! What a WASI preview 1 guest learns of its files' identity. wasmtime-wasi gives a file's
//! inode number as a hash of the host's (device, inode), and each run's working folder is a
//! fresh host folder with another inode: a program that stats its folder (full Python's
//! imports did) saw another number each run, and its fuel followed the number's magnitude.
//! Here the three calls that return an inode number (`path_filestat_get`, `fd_filestat_get`,
//! `fd_readdir`) run as wasmtime-wasi implements them, and the numbers they return are
//! replaced by the run's own numbering: 1, 2, 3, … in the order the run first sees each file.
//! Within a run one file keeps one number, so identity checks (`samefile`) still hold.
//!
//! Timestamps stay the host's (README, "Deterministic runs"): a program that compares its
//! files' times needs them to move.

use std::collections::HashMap;

use anyhow::Result;
use wasmtime::{Caller, Extern, Linker};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p1::wasi_snapshot_preview1::{self as snapshot, WasiSnapshotPreview1 as _};
use wiggle::GuestMemory;

use super::command::CommandState;

/// Where a filestat's inode number sits (`dev` u64, then `ino` u64).
const FILESTAT_INO: usize = 8;
/// A dirent's header: `d_next` u64, `d_ino` u64, `d_namlen` u32, `d_type` u8, padding.
const DIRENT_HEADER: usize = 24;
const DIRENT_INO: usize = 8;
const DIRENT_NAMLEN: usize = 16;

/// The run's inode numbers, by the host's hashed number.
#[derive(Default)]
pub(crate) struct Inodes(HashMap<u64, u64>);

impl Inodes {
    /// The run's number for the host's `ino`: the next one when first seen (0, "unknown",
    /// stays 0).
    pub(crate) fn number(&mut self, ino: u64) -> u64 {
        if ino == 0 {
            return 0;
        }
        let next = self.0.len() as u64 + 1;
        *self.0.entry(ino).or_insert(next)
    }

    /// Renumbers the inode of the filestat at `at` in `memory`.
    fn filestat(&mut self, memory: &mut [u8], at: u32) {
        self.renumber(memory, at as usize + FILESTAT_INO);
    }

    /// Renumbers every whole dirent header in the `used` bytes a readdir wrote at `at`; the
    /// last entry may be cut off where the buffer ended.
    fn dirents(&mut self, memory: &mut [u8], at: u32, used: u32) {
        let (start, end) = (at as usize, at as usize + used as usize);
        let mut entry = start;
        while entry + DIRENT_NAMLEN <= end {
            self.renumber(memory, entry + DIRENT_INO);
            let Some(namlen) = read_u32(memory, entry + DIRENT_NAMLEN) else {
                return;
            };
            entry += DIRENT_HEADER + namlen as usize;
        }
    }

    fn renumber(&mut self, memory: &mut [u8], at: usize) {
        let Some(bytes) = memory.get_mut(at..at + 8) else {
            return;
        };
        let ino = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        bytes.copy_from_slice(&self.number(ino).to_le_bytes());
    }
}

fn read_u32(memory: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(memory.get(at..at + 4)?.try_into().ok()?))
}

/// Replaces the linker's three inode-returning WASI calls with ones that renumber.
pub(crate) fn renumber_inodes(linker: &mut Linker<CommandState>) -> Result<()> {
    linker.allow_shadowing(true);
    let module = "wasi_snapshot_preview1";
    linker.func_wrap_async(
        module,
        "path_filestat_get",
        |mut caller: Caller<'_, CommandState>,
         (fd, flags, path, path_len, buf): (i32, i32, i32, i32, i32)| {
            Box::new(async move {
                let call = async |ctx: &mut WasiP1Ctx, memory: &mut GuestMemory<'_>| {
                    snapshot::path_filestat_get(ctx, memory, fd, flags, path, path_len, buf).await
                };
                renumbered(&mut caller, call, |memory, inodes| {
                    inodes.filestat(memory, buf as u32)
                })
                .await
            })
        },
    )?;
    linker.func_wrap_async(
        module,
        "fd_filestat_get",
        |mut caller: Caller<'_, CommandState>, (fd, buf): (i32, i32)| {
            Box::new(async move {
                let call = async |ctx: &mut WasiP1Ctx, memory: &mut GuestMemory<'_>| {
                    snapshot::fd_filestat_get(ctx, memory, fd, buf).await
                };
                renumbered(&mut caller, call, |memory, inodes| {
                    inodes.filestat(memory, buf as u32)
                })
                .await
            })
        },
    )?;
    linker.func_wrap_async(
        module,
        "fd_readdir",
        |mut caller: Caller<'_, CommandState>,
         (fd, buf, buf_len, cookie, used): (i32, i32, i32, i64, i32)| {
            Box::new(async move {
                let call = async |ctx: &mut WasiP1Ctx, memory: &mut GuestMemory<'_>| {
                    snapshot::fd_readdir(ctx, memory, fd, buf, buf_len, cookie, used).await
                };
                renumbered(&mut caller, call, |memory, inodes| {
                    if let Some(n) = read_u32(memory, used as u32 as usize) {
                        inodes.dirents(memory, buf as u32, n.min(buf_len as u32));
                    }
                })
                .await
            })
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Calls wasmtime-wasi's own implementation of a call, as its linker entry would, then, if it
/// succeeded, `renumber`s what it wrote.
async fn renumbered<F>(
    caller: &mut Caller<'_, CommandState>,
    call: F,
    renumber: impl FnOnce(&mut [u8], &mut Inodes),
) -> wasmtime::Result<i32>
where
    F: AsyncFnOnce(&mut WasiP1Ctx, &mut GuestMemory<'_>) -> wiggle::error::Result<i32>,
{
    let fuel = wasmtime::AsContextMut::as_context_mut(&mut *caller).hostcall_fuel();
    let errno = {
        let memory = memory_of(caller)?;
        let (bytes, state) = memory.data_and_store_mut(&mut *caller);
        state.ctx.set_hostcall_fuel(fuel);
        call(&mut state.ctx, &mut GuestMemory::Unshared(bytes)).await?
    };
    if errno == 0 {
        let memory = memory_of(caller)?;
        let (bytes, state) = memory.data_and_store_mut(&mut *caller);
        renumber(bytes, &mut state.inodes);
    }
    Ok(errno)
}

/// The guest's exported memory, which every WASI preview 1 call reads and writes.
fn memory_of(caller: &mut Caller<'_, CommandState>) -> wasmtime::Result<wasmtime::Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Ok(memory),
        _ => wasmtime::bail!("missing required memory export"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirent(memory: &mut Vec<u8>, ino: u64, name: &str) {
        memory.extend(7u64.to_le_bytes());
        memory.extend(ino.to_le_bytes());
        memory.extend((name.len() as u32).to_le_bytes());
        memory.extend([3, 0, 0, 0]);
        memory.extend(name.as_bytes());
    }

    fn ino_at(memory: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(memory[at..at + 8].try_into().unwrap())
    }

    #[test]
    fn inodes_are_numbered_in_the_order_first_seen_and_keep_their_number() {
        let mut inodes = Inodes::default();
        assert_eq!(inodes.number(6_002_651_899_650_934_901), 1);
        assert_eq!(inodes.number(313_124_405_390_998_830), 2);
        assert_eq!(inodes.number(6_002_651_899_650_934_901), 1);
        assert_eq!(inodes.number(0), 0, "unknown stays unknown");
        assert_eq!(inodes.number(42), 3);
    }

    #[test]
    fn every_whole_dirent_is_renumbered_and_a_cut_off_one_is_left() {
        // ".", "..", "a.txt", then an entry cut off inside its inode number.
        let mut memory = vec![0xAA; 4];
        dirent(&mut memory, 900, ".");
        dirent(&mut memory, 900, "..");
        dirent(&mut memory, 777, "a.txt");
        let cut = memory.len();
        dirent(&mut memory, 555, "b");
        let used = (cut + 12 - 4) as u32;
        let mut inodes = Inodes::default();
        inodes.dirents(&mut memory, 4, used);
        assert_eq!(ino_at(&memory, 4 + DIRENT_INO), 1);
        assert_eq!(ino_at(&memory, 4 + 25 + DIRENT_INO), 1);
        assert_eq!(ino_at(&memory, 4 + 25 + 26 + DIRENT_INO), 2);
        assert_eq!(ino_at(&memory, cut + DIRENT_INO), 555, "the cut-off entry");
        assert_eq!(&memory[..4], &[0xAA; 4]);
    }

    #[test]
    fn a_filestat_gets_the_runs_number() {
        let mut memory = vec![0u8; 80];
        memory[16 + FILESTAT_INO..16 + FILESTAT_INO + 8].copy_from_slice(&99u64.to_le_bytes());
        let mut inodes = Inodes::default();
        inodes.number(5);
        inodes.filestat(&mut memory, 16);
        assert_eq!(ino_at(&memory, 16 + FILESTAT_INO), 2);
    }
}
