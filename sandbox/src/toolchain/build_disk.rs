//! The on-disk level of [`builds`](super::builds): serialised native code of successful compiles,
//! bounded in bytes, that survives restarts.
//!
//! Native code is loaded into the process and executed, so a poisoned file would be code
//! execution outside the sandbox. Files are therefore only ever written by the service, into a
//! folder only its user can write (checked at open: owned by this user, no group or other
//! permissions), each through a private temporary file renamed into place; a file is loaded only
//! when it is owned by this user and its SHA-256 checksum matches (a torn or corrupt file is
//! removed and the program rebuilt).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::outcome::CompileOutcome;

/// Most bytes the folder holds; past it the least recently used builds go, down to 3/4 of it.
const DISK_BYTES: u64 = 1 << 30;
/// First bytes of every file: the format and its version.
const MAGIC: &[u8; 8] = b"hacrlbd1";
/// File name extension of a build.
const EXTENSION: &str = "build";
/// Stands for "no exit code" in a file.
const NO_EXIT_CODE: i32 = i32::MIN;

/// The folder of cached builds.
pub(crate) struct BuildDisk {
    dir: PathBuf,
    /// Bytes in the folder, as this process counts them since it opened it.
    bytes: AtomicU64,
}

impl BuildDisk {
    /// Opens (creating) `dir`; refuses a folder other users could write to.
    pub(crate) fn open(dir: &Path) -> Result<BuildDisk, String> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("creating the folder: {e}"))?;
        let meta =
            std::fs::symlink_metadata(dir).map_err(|e| format!("reading the folder: {e}"))?;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o077 != 0 {
            return Err(format!(
                "the folder must be a directory owned by uid {me} with mode 0700 (it is uid {}, mode {:o})",
                meta.uid(),
                meta.mode() & 0o7777
            ));
        }
        let disk = BuildDisk {
            dir: dir.to_path_buf(),
            bytes: AtomicU64::new(0),
        };
        let bytes = disk.files().iter().map(|(_, size, _)| size).sum();
        disk.bytes.store(bytes, Ordering::Relaxed);
        Ok(disk)
    }

    /// The compile outcome and native code stored as `name`, when the file is intact.
    pub(crate) fn load(&self, name: &str) -> Option<(CompileOutcome, Vec<u8>)> {
        let path = self.path(name);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .ok()?;
        let meta = file.metadata().ok()?;
        // SAFETY: geteuid has no preconditions.
        if !meta.is_file() || meta.uid() != unsafe { libc::geteuid() } {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        match decode(&bytes) {
            Some(found) => {
                // The modification time orders eviction: a used build is recent.
                let _ = file.set_modified(SystemTime::now());
                Some(found)
            }
            None => {
                tracing::warn!(file = %path.display(), "removing a corrupt cached build");
                self.remove(name);
                None
            }
        }
    }

    /// Stores a build as `name`, then trims the folder to its budget. Failures only cost a
    /// later rebuild, so they are logged, not returned.
    pub(crate) fn store(&self, name: &str, compile: &CompileOutcome, native: &[u8]) {
        let bytes = encode(compile, native);
        let written = tempfile::Builder::new()
            .prefix(".partial-")
            .tempfile_in(&self.dir)
            .and_then(|mut tmp| {
                tmp.write_all(&bytes)?;
                tmp.persist(self.path(name)).map_err(|e| e.error)
            });
        if let Err(e) = written {
            tracing::warn!(error = %e, "could not cache a build on disk");
            return;
        }
        let total =
            self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
        if total > DISK_BYTES {
            self.trim();
        }
    }

    /// Removes the build stored as `name`.
    pub(crate) fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.path(name));
    }

    /// Removes the least recently used builds until the folder holds 3/4 of its budget.
    fn trim(&self) {
        let mut files = self.files();
        files.sort_by_key(|(_, _, used)| *used);
        let mut total: u64 = files.iter().map(|(_, size, _)| size).sum();
        for (path, size, _) in files {
            if total <= DISK_BYTES / 4 * 3 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= size;
            }
        }
        self.bytes.store(total, Ordering::Relaxed);
    }

    /// Every build file: path, size and last use.
    fn files(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        listing
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == EXTENSION))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((e.path(), meta.len(), meta.modified().ok()?))
            })
            .collect()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.{EXTENSION}"))
    }
}

/// `MAGIC`, SHA-256 of the body, then the body: exit code, diagnostics' length and bytes, and
/// the native code.
fn encode(compile: &CompileOutcome, native: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(native.len() + compile.stderr.len() + 8);
    body.extend(compile.exit_code.unwrap_or(NO_EXIT_CODE).to_le_bytes());
    body.extend((compile.stderr.len() as u32).to_le_bytes());
    body.extend(compile.stderr.as_bytes());
    body.extend(native);
    let mut file = Vec::with_capacity(body.len() + 40);
    file.extend(MAGIC);
    file.extend(Sha256::digest(&body));
    file.extend(body);
    file
}

/// The build in a file's bytes, when they are intact.
fn decode(bytes: &[u8]) -> Option<(CompileOutcome, Vec<u8>)> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (digest, body) = rest.split_at_checked(32)?;
    if Sha256::digest(body)[..] != *digest {
        return None;
    }
    let (code, body) = body.split_at_checked(4)?;
    let (len, body) = body.split_at_checked(4)?;
    let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
    let (stderr, native) = body.split_at_checked(len)?;
    let code = i32::from_le_bytes(code.try_into().ok()?);
    let compile = CompileOutcome {
        ok: true,
        exit_code: (code != NO_EXIT_CODE).then_some(code),
        stderr: String::from_utf8_lossy(stderr).into_owned(),
        timed_out: false,
        wall_time: std::time::Duration::ZERO,
        cached: true,
    };
    Some((compile, native.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile() -> CompileOutcome {
        CompileOutcome {
            ok: true,
            exit_code: Some(0),
            stderr: "warning: x\n".into(),
            timed_out: false,
            wall_time: std::time::Duration::ZERO,
            cached: true,
        }
    }

    #[test]
    fn a_build_round_trips_and_a_flipped_bit_is_refused() {
        let bytes = encode(&compile(), b"native code");
        let (c, native) = decode(&bytes).unwrap();
        assert_eq!((c, native.as_slice()), (compile(), &b"native code"[..]));
        for i in [0, 9, 45, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 1;
            assert!(decode(&bad).is_none(), "byte {i}");
        }
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
    }

    #[test]
    fn a_folder_others_can_write_is_refused_and_a_corrupt_file_removed() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let open = root.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(BuildDisk::open(&open).is_err());

        let disk = BuildDisk::open(&root.path().join("private")).unwrap();
        disk.store("a", &compile(), b"code");
        assert_eq!(disk.load("a").unwrap().1, b"code");
        let path = disk.path("a");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(disk.load("a").is_none());
        assert!(!path.exists());
    }
}
