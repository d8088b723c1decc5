//! Each run's working folder: a fresh host temporary folder preopened as the guest's `.`, holding
//! the provided files, writable by the program, bounded in size, and removed after the run.
//!
//! WASI gives the guest only this folder (through cap-std, which refuses paths and symlinks that
//! lead out of it), so a program can write files next to itself, as SandboxFusion's programs do,
//! without ever reaching the host's own files. The host side never follows a symlink the guest
//! made: sizes are taken with `symlink_metadata` and fetched files are opened with `O_NOFOLLOW`
//! after checking that no folder on their path is a symlink.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::program::ProgramFile;

/// Most files and folders a run may create in its working folder.
pub(crate) const MAX_ENTRIES: u64 = 4096;

/// A run's working folder, and its temporary folder when the guest has one (deleted on drop).
pub(crate) struct Scratch {
    /// Held only to remove the folders when the run ends.
    _dir: tempfile::TempDir,
    /// The working folder: the run's folder itself, or its `work/` beside its `tmp/`.
    work: PathBuf,
    tmp: Option<PathBuf>,
    watch: ScratchWatch,
}

/// What the time-limit callback needs to notice a folder that grew past its limit.
#[derive(Clone)]
pub(crate) struct ScratchWatch {
    path: PathBuf,
    limit_bytes: u64,
}

impl ScratchWatch {
    /// Whether the folder holds more than its limit of bytes or entries. Counting stops as soon
    /// as a limit is passed, so a folder stuffed with files costs no more than the limit to scan.
    pub(crate) fn exceeded(&self) -> bool {
        let (mut bytes, mut entries) = (0u64, 0u64);
        let mut pending = vec![self.path.clone()];
        while let Some(dir) = pending.pop() {
            let Ok(listing) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in listing.flatten() {
                entries += 1;
                let Ok(meta) = entry.path().symlink_metadata() else {
                    continue;
                };
                bytes = bytes.saturating_add(meta.len());
                if meta.is_dir() {
                    pending.push(entry.path());
                }
                if bytes > self.limit_bytes || entries > MAX_ENTRIES {
                    return true;
                }
            }
        }
        false
    }
}

impl Scratch {
    /// A fresh folder holding `files`, allowed to grow to `limit_bytes`; with `tmp`, a fresh
    /// temporary folder beside it, counted in the same limit.
    pub(crate) fn new(files: &[ProgramFile], limit_bytes: u64, tmp: bool) -> Result<Scratch> {
        let dir = tempfile::Builder::new().prefix("sandbox-run-").tempdir()?;
        let (work, tmp) = if tmp {
            let (work, tmp) = (dir.path().join("work"), dir.path().join("tmp"));
            std::fs::create_dir(&work)?;
            std::fs::create_dir(&tmp)?;
            (work, Some(tmp))
        } else {
            (dir.path().to_path_buf(), None)
        };
        for file in files {
            let path = work.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, &file.contents)?;
        }
        let watch = ScratchWatch {
            path: dir.path().to_path_buf(),
            limit_bytes,
        };
        Ok(Scratch {
            _dir: dir,
            work,
            tmp,
            watch,
        })
    }

    /// The host path to preopen as the working folder.
    pub(crate) fn path(&self) -> &Path {
        &self.work
    }

    /// The host path to preopen as `/tmp`, when the guest has one.
    pub(crate) fn tmp(&self) -> Option<&Path> {
        self.tmp.as_deref()
    }

    /// A handle for checking the folder's size while the run goes on.
    pub(crate) fn watch(&self) -> ScratchWatch {
        self.watch.clone()
    }

    /// The requested files that exist as regular files (missing ones are left out, as
    /// SandboxFusion does). Paths were validated as relative and free of `..` up front.
    pub(crate) fn fetch(&self, paths: &[String]) -> Vec<ProgramFile> {
        paths
            .iter()
            .filter_map(|p| {
                self.read(p).map(|contents| ProgramFile {
                    path: p.clone(),
                    contents,
                })
            })
            .collect()
    }

    /// Reads one file without following any symlink the program may have planted.
    fn read(&self, relative: &str) -> Option<Vec<u8>> {
        let mut path = self.work.clone();
        let parts: Vec<&str> = relative.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            path.push(part);
            if !path.symlink_metadata().ok()?.is_dir() {
                return None;
            }
        }
        path.push(parts.last()?);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let mut contents = Vec::new();
        // The folder's limit bounds every file; reading no more than it guards against a file
        // still growing.
        file.by_ref()
            .take(self.watch.limit_bytes)
            .read_to_end(&mut contents)
            .ok()?;
        Some(contents)
    }
}
