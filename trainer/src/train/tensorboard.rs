//! TensorBoard event files of a learner's `train_metrics` rows, written next to its checkpoints
//! so that `tensorboard --logdir output_dir` plots every agent of a run.
//!
//! The format is TensorFlow's TFRecord of `Event` protocol buffers, encoded here by hand: the
//! crates.io writers pull in unmaintained protobuf stacks for the four messages needed. A record
//! is the data's length (u64, little-endian), the masked CRC-32C of those 8 bytes, the data, and
//! the masked CRC-32C of the data.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use serde_json::Value;
use wire::StepMetrics;

/// CRC-32C (Castagnoli), the checksum of TFRecord framing.
const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// The checksum TFRecord stores: CRC-32C rotated and offset, because a CRC of data that
/// embeds CRCs is weak.
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = CRC32C.checksum(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// One TFRecord around `data`.
fn record(data: &[u8]) -> Vec<u8> {
    let len = (data.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
    out
}

/// Protocol-buffer wire encoding of the few fields an `Event` needs.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    /// Field `field` with wire type `wire` (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }

    fn uint(mut self, field: u32, v: u64) -> Self {
        self.key(field, 0);
        self.varint(v);
        self
    }

    fn double(mut self, field: u32, v: f64) -> Self {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    fn float(mut self, field: u32, v: f32) -> Self {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    fn bytes(mut self, field: u32, v: &[u8]) -> Self {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
        self
    }
}

/// `Event { wall_time = 1, step = 2 }` followed by the event's payload field.
fn event(wall_time: f64, step: u64) -> Message {
    Message::default().double(1, wall_time).uint(2, step)
}

/// `Event.summary` (field 5): `Summary { repeated Value value = 1 }`, each
/// `Value { tag = 1, simple_value = 2 }`.
fn scalar_event(wall_time: f64, step: u64, scalars: &[(String, f64)]) -> Vec<u8> {
    let summary = scalars.iter().fold(Message::default(), |s, (tag, v)| {
        let value = Message::default()
            .bytes(1, tag.as_bytes())
            .float(2, *v as f32);
        s.bytes(1, &value.0)
    });
    event(wall_time, step).bytes(5, &summary.0).0
}

/// `Event.session_log` (field 7) with `status = START` (1): TensorBoard's reader then drops
/// what earlier files logged for steps from `step` on.
fn session_start(wall_time: f64, step: u64) -> Vec<u8> {
    let log = Message::default().uint(1, 1);
    event(wall_time, step).bytes(7, &log.0).0
}

/// `Event.file_version` (field 3): the first event of every file.
fn file_version(wall_time: f64) -> Vec<u8> {
    event(wall_time, 0).bytes(3, b"brain.Event:2").0
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The machine's name for the file name, as TensorFlow writers put it there.
fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

/// An event file one process appends a learner's scalars to.
pub(super) struct EventFile {
    file: File,
    path: PathBuf,
}

impl EventFile {
    /// A new `events.out.tfevents.<secs>.<host>` in `dir` (with a `.N` suffix if a process of
    /// the same second made one), opened by a session start at `first_step`: a resumed run's
    /// steps replace, for TensorBoard, those its interrupted predecessor logged after its last
    /// checkpoint.
    pub(super) fn create(dir: &Path, first_step: usize) -> Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let wall = now();
        let base = format!("events.out.tfevents.{}.{}", wall as u64, hostname());
        for n in 0..100 {
            let name = match n {
                0 => base.clone(),
                _ => format!("{base}.{n}"),
            };
            let path = dir.join(name);
            match File::create_new(&path) {
                Ok(file) => {
                    let mut f = Self { file, path };
                    f.write(&file_version(wall))?;
                    f.write(&session_start(wall, first_step as u64))?;
                    return Ok(f);
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
        bail!("100 event files named {base}* in {}", dir.display())
    }

    /// Appends `row`'s scalars ([`row_scalars`]) at its step; written through, so TensorBoard
    /// shows a running training's steps as they end.
    pub(super) fn log(&mut self, row: &StepMetrics) -> Result<()> {
        let scalars = row_scalars(row)?;
        self.write(&scalar_event(now(), row.step.max(0) as u64, &scalars))
    }

    fn write(&mut self, event: &[u8]) -> Result<()> {
        self.file
            .write_all(&record(event))
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// Every number of a `train_metrics` row as a TensorBoard tag: the columns by name (`loss`,
/// `accuracy`, `kl`, `grad_norm`, …) and the keys of `extra` under `extra/` (`extra/clip_own`,
/// `extra/omega_source_over_learner/<agent>`); absent values, strings and the step itself have
/// no curve.
fn row_scalars(row: &StepMetrics) -> Result<Vec<(String, f64)>> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, f64)>) {
        match v {
            Value::Number(n) => out.extend(n.as_f64().map(|x| (prefix.to_string(), x))),
            Value::Object(map) => {
                for (k, v) in map {
                    let tag = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}/{k}")
                    };
                    walk(&tag, v, out);
                }
            }
            _ => {}
        }
    }
    let mut value = serde_json::to_value(row)?;
    if let Value::Object(map) = &mut value {
        map.remove("step");
    }
    let mut out = Vec::new();
    walk("", &value, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;

    #[test]
    fn the_checksum_is_crc32c_masked_as_tfrecord_masks_it() {
        // The CRC catalogue's check value of CRC-32/ISCSI.
        assert_eq!(CRC32C.checksum(b"123456789"), 0xe306_9283);
        // The masked values TensorBoard's own reader (its pure-Python `masked_crc32c`) computes.
        assert_eq!(masked_crc(b"123456789"), 0xc78a_b0e5);
        assert_eq!(masked_crc(b"abc"), 0x21f1_576e);
        // RFC 3720 B.4: 32 bytes of zeros.
        assert_eq!(CRC32C.checksum(&[0; 32]), 0x8a91_36aa);
    }

    #[test]
    fn a_record_frames_its_data_with_length_and_both_checksums() {
        let r = record(b"abc");
        assert_eq!(r.len(), 8 + 4 + 3 + 4);
        assert_eq!(&r[..8], &3u64.to_le_bytes());
        assert_eq!(&r[8..12], &masked_crc(&3u64.to_le_bytes()).to_le_bytes());
        assert_eq!(&r[12..15], b"abc");
        assert_eq!(&r[15..], &masked_crc(b"abc").to_le_bytes());
    }

    #[test]
    fn a_scalar_event_has_the_wire_bytes_of_event_summary_value() {
        let bytes = scalar_event(2.0, 300, &[("kl".into(), 0.5)]);
        let mut expected = vec![0x09];
        expected.extend_from_slice(&2.0f64.to_le_bytes());
        // step 300 as a varint: 0xac 0x02.
        expected.extend_from_slice(&[0x10, 0xac, 0x02]);
        // summary (field 5, 11 bytes) ⊃ value (field 1, 9 bytes) ⊃ tag "kl", simple_value 0.5.
        expected.extend_from_slice(&[0x2a, 11, 0x0a, 9, 0x0a, 2, b'k', b'l', 0x15]);
        expected.extend_from_slice(&0.5f32.to_le_bytes());
        assert_eq!(bytes, expected);

        let start = session_start(2.0, 3);
        assert_eq!(&start[9..], &[0x10, 3, 0x3a, 2, 0x08, 1]);
        let version = file_version(2.0);
        assert_eq!(&version[9..13], &[0x10, 0, 0x1a, 13]);
        assert_eq!(&version[13..], b"brain.Event:2");
    }

    #[test]
    fn every_number_of_a_row_is_a_tag_and_nothing_else_is() {
        let row = StepMetrics {
            run: "r".into(),
            agent_id: Uuid::new_v4(),
            step: 4,
            loss: Some(0.25),
            reward_mean: None,
            accuracy: Some(0.5),
            clip_fraction: Some(0.0),
            kl: Some(0.125),
            grad_norm: Some(3.0),
            extra: json!({"algorithm": "hacpo", "clip_own": 0.75, "eval_accuracy": null,
                          "omega_source_over_learner": {"b": 2.0}, "sequences": 8}),
            created_at: None,
        };
        let mut tags = row_scalars(&row).unwrap();
        tags.sort_by(|a, b| a.0.cmp(&b.0));
        let expected: Vec<(String, f64)> = [
            ("accuracy", 0.5),
            ("clip_fraction", 0.0),
            ("extra/clip_own", 0.75),
            ("extra/omega_source_over_learner/b", 2.0),
            ("extra/sequences", 8.0),
            ("grad_norm", 3.0),
            ("kl", 0.125),
            ("loss", 0.25),
        ]
        .into_iter()
        .map(|(t, v)| (t.to_string(), v))
        .collect();
        assert_eq!(tags, expected);
    }

    #[test]
    fn files_of_the_same_second_get_distinct_names_and_start_with_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let a = EventFile::create(dir.path(), 1).unwrap();
        let b = EventFile::create(dir.path(), 1).unwrap();
        assert_ne!(a.path, b.path);
        let name = a.path.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("events.out.tfevents."), "{name}");
        let bytes = std::fs::read(&a.path).unwrap();
        let first = record(&file_version(0.0));
        // Same length and framing as a version record; its data ends in the version string.
        let len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        assert_eq!(len + 16, first.len());
        assert_eq!(&bytes[12 + len - 13..12 + len], b"brain.Event:2");
    }
}
