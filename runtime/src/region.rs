//! A register region: the device map as shared memory, with checked, atomic 64-bit accesses.
//!
//! [`Region`] owns one `mmap(MAP_SHARED)` of a file (the emulator's `/dev/shm/scenic-NAME`, a plain
//! file in tests, later `/dev/scenicN`). All register accesses go through [`Region::load`] and
//! [`Region::store`] (and the read-modify-write helpers), which view the aligned word as an
//! [`AtomicU64`]: one aligned 8-byte access, as `docs/device.md` §1.1 requires, and sound in Rust's
//! memory model even while another process writes the same word.
//!
//! Invariants:
//! - every access is bounds-checked and (for words) 8-byte aligned; a bad offset is a
//!   [`RegionError`], never undefined behaviour or a panic;
//! - byte-granular accesses ([`Region::read_bytes`], [`Region::write_bytes`]: ring entries, the
//!   staging window) are done with relaxed atomic loads and stores of whole words and bytes, so they
//!   are never data races either; they carry no ordering: the ring protocol adds it (§1.3: the
//!   producer fences with `Release` before publishing its index, the consumer loads the index with
//!   `Acquire`, see `ring.rs`);
//! - the mapping lives as long as the `Region`; the file must not be truncated meanwhile (a
//!   truncated file raises `SIGBUS` on access: the device side never truncates, and `Device::open`
//!   checks the size first).
//!
//! Its `unsafe` code is the `mmap`/`munmap` calls and the pointer-to-atomic casts, each with its
//! safety argument (the crate's other system calls are in `net/sys.rs`, `nic.rs` and `kmod.rs`).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Why a region could not be made or an access was refused.
#[derive(Debug, thiserror::Error)]
pub enum RegionError {
    /// The file could not be opened, created or sized.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// `mmap` failed.
    #[error("cannot map {len} bytes of {path}: {source}")]
    Map {
        /// The file.
        path: String,
        /// Bytes asked for.
        len: usize,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is smaller than the map.
    #[error("{path} holds {actual} bytes; a SCENIC map is {expected} bytes")]
    Size {
        /// The file.
        path: String,
        /// Its size.
        actual: u64,
        /// The map's size.
        expected: u64,
    },
    /// An access past the end of the map.
    #[error("access of {len} bytes at {offset:#x} is outside the {size:#x}-byte map")]
    OutOfBounds {
        /// Byte offset.
        offset: u64,
        /// Bytes accessed.
        len: u64,
        /// Size of the map.
        size: u64,
    },
    /// A word access at an offset that is not a multiple of 8.
    #[error("register access at {offset:#x} is not 8-byte aligned")]
    Unaligned {
        /// Byte offset.
        offset: u64,
    },
}

/// One shared mapping of a file, `len` bytes from offset 0.
#[derive(Debug)]
pub struct Region {
    base: *mut u8,
    len: usize,
    path: String,
    _file: File,
}

// SAFETY: the mapping is shared memory accessed only through atomics (see the module doc); the raw
// pointer is not tied to a thread.
#[allow(unsafe_code)]
unsafe impl Send for Region {}
// SAFETY: as above; every access through `&Region` is an atomic operation.
#[allow(unsafe_code)]
unsafe impl Sync for Region {}

impl Region {
    /// Maps an existing file of at least `len` bytes, read-write and shared.
    pub fn open(path: &Path, len: u64) -> Result<Region, RegionError> {
        let name = path.display().to_string();
        let open_err = |source| RegionError::Open {
            path: name.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(open_err)?;
        let meta = file.metadata().map_err(open_err)?;
        let actual = meta.len();
        // A char device (`/dev/scenicN`) has no length; the driver bounds the mmap itself, and
        // inserts a slot block's pages only once the slot is granted on this file.
        if meta.file_type().is_char_device() {
            crate::kmod::grant_slots(&file).map_err(open_err)?;
        } else if actual < len {
            return Err(RegionError::Size {
                path: name,
                actual,
                expected: len,
            });
        }
        Region::map(file, name, len)
    }

    /// Creates (or truncates) the file, sizes it to `len` bytes (all zero) and maps it.
    pub fn create(path: &Path, len: u64) -> Result<Region, RegionError> {
        let name = path.display().to_string();
        let open_err = |source| RegionError::Open {
            path: name.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(open_err)?;
        file.set_len(len).map_err(open_err)?;
        Region::map(file, name, len)
    }

    fn map(file: File, path: String, len: u64) -> Result<Region, RegionError> {
        let map_err = |source| RegionError::Map {
            path: path.clone(),
            len: len as usize,
            source,
        };
        let size = usize::try_from(len)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| map_err(std::io::Error::from(std::io::ErrorKind::InvalidInput)))?;
        // SAFETY: a fresh shared mapping of an open file descriptor; the kernel picks the address;
        // the result is checked against MAP_FAILED before use.
        #[allow(unsafe_code)]
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(map_err(std::io::Error::last_os_error()));
        }
        Ok(Region {
            base: ptr.cast::<u8>(),
            len: size,
            path,
            _file: file,
        })
    }

    /// Bytes in the map.
    pub fn len(&self) -> u64 {
        self.len as u64
    }

    /// Always false: a region maps at least one byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file the region maps.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn check(&self, offset: u64, len: u64) -> Result<usize, RegionError> {
        let end = offset.checked_add(len);
        match end {
            Some(end) if end <= self.len as u64 => Ok(offset as usize),
            _ => Err(RegionError::OutOfBounds {
                offset,
                len,
                size: self.len as u64,
            }),
        }
    }

    fn word(&self, offset: u64) -> Result<&AtomicU64, RegionError> {
        if offset % 8 != 0 {
            return Err(RegionError::Unaligned { offset });
        }
        let at = self.check(offset, 8)?;
        // SAFETY: `at + 8 <= len` (checked), the mapping is page aligned so `base + at` is 8-byte
        // aligned, and the memory lives as long as `self`; AtomicU64 has the layout of u64 and all
        // accesses to this memory from this process are atomic.
        #[allow(unsafe_code)]
        let word = unsafe { &*self.base.add(at).cast::<AtomicU64>() };
        Ok(word)
    }

    fn byte(&self, offset: u64) -> Result<&AtomicU8, RegionError> {
        let at = self.check(offset, 1)?;
        // SAFETY: in bounds (checked); AtomicU8 has no alignment requirement beyond 1.
        #[allow(unsafe_code)]
        let byte = unsafe { &*self.base.add(at).cast::<AtomicU8>() };
        Ok(byte)
    }

    /// One aligned 64-bit load (little-endian: the host is x86-64 or AArch64 little-endian).
    pub fn load(&self, offset: u64, order: Ordering) -> Result<u64, RegionError> {
        Ok(u64::from_le(self.word(offset)?.load(order)))
    }

    /// One aligned 64-bit store.
    pub fn store(&self, offset: u64, value: u64, order: Ordering) -> Result<(), RegionError> {
        self.word(offset)?.store(value.to_le(), order);
        Ok(())
    }

    /// Atomic swap (the device takes a `CMD` register with `swap(0)`, §1.5).
    pub fn swap(&self, offset: u64, value: u64, order: Ordering) -> Result<u64, RegionError> {
        Ok(u64::from_le(self.word(offset)?.swap(value.to_le(), order)))
    }

    /// Atomic compare-and-swap; `Ok(Err(actual))` when the word was not `current`.
    pub fn compare_exchange(
        &self,
        offset: u64,
        current: u64,
        new: u64,
    ) -> Result<Result<u64, u64>, RegionError> {
        let word = self.word(offset)?;
        Ok(word
            .compare_exchange(
                current.to_le(),
                new.to_le(),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .map(u64::from_le)
            .map_err(u64::from_le))
    }

    /// Copies `out.len()` bytes from `offset` (relaxed; the ring protocol orders it).
    pub fn read_bytes(&self, offset: u64, out: &mut [u8]) -> Result<(), RegionError> {
        self.check(offset, out.len() as u64)?;
        let mut i = 0usize;
        while i < out.len() {
            let at = offset + i as u64;
            if at % 8 == 0 && out.len() - i >= 8 {
                let w = self.word(at)?.load(Ordering::Relaxed);
                out[i..i + 8].copy_from_slice(&w.to_ne_bytes());
                i += 8;
            } else {
                out[i] = self.byte(at)?.load(Ordering::Relaxed);
                i += 1;
            }
        }
        Ok(())
    }

    /// Copies `data` to `offset` (relaxed; the ring protocol orders it).
    pub fn write_bytes(&self, offset: u64, data: &[u8]) -> Result<(), RegionError> {
        self.check(offset, data.len() as u64)?;
        let mut i = 0usize;
        while i < data.len() {
            let at = offset + i as u64;
            if let (0, Some(chunk)) = (at % 8, data.get(i..i + 8)) {
                let mut w = [0u8; 8];
                w.copy_from_slice(chunk);
                self.word(at)?
                    .store(u64::from_ne_bytes(w), Ordering::Relaxed);
                i += 8;
            } else {
                self.byte(at)?.store(data[i], Ordering::Relaxed);
                i += 1;
            }
        }
        Ok(())
    }

    /// Zeroes `len` bytes from `offset`.
    pub fn zero(&self, offset: u64, len: u64) -> Result<(), RegionError> {
        self.check(offset, len)?;
        let mut at = offset;
        while at < offset + len {
            if at % 8 == 0 && offset + len - at >= 8 {
                self.word(at)?.store(0, Ordering::Relaxed);
                at += 8;
            } else {
                self.byte(at)?.store(0, Ordering::Relaxed);
                at += 1;
            }
        }
        Ok(())
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` are exactly what mmap returned; no reference into the mapping
        // outlives `self` (all borrows are tied to `&self`).
        #[allow(unsafe_code)]
        unsafe {
            libc::munmap(self.base.cast::<libc::c_void>(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(len: u64) -> (tempfile::TempDir, Region) {
        let dir = tempfile::tempdir().unwrap();
        let r = Region::create(&dir.path().join("map"), len).unwrap();
        (dir, r)
    }

    #[test]
    fn words_round_trip_little_endian() {
        let (_d, r) = region(4096);
        r.store(8, 0x0102_0304_0506_0708, Ordering::Release)
            .unwrap();
        assert_eq!(r.load(8, Ordering::Acquire).unwrap(), 0x0102_0304_0506_0708);
        let mut b = [0u8; 8];
        r.read_bytes(8, &mut b).unwrap();
        assert_eq!(b, [8, 7, 6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn bad_offsets_are_errors() {
        let (_d, r) = region(4096);
        assert!(matches!(
            r.load(4, Ordering::Relaxed),
            Err(RegionError::Unaligned { offset: 4 })
        ));
        assert!(matches!(
            r.load(4096, Ordering::Relaxed),
            Err(RegionError::OutOfBounds { .. })
        ));
        assert!(matches!(
            r.store(u64::MAX - 7, 1, Ordering::Relaxed),
            Err(RegionError::OutOfBounds { .. })
        ));
        assert!(r.write_bytes(4090, &[0; 7]).is_err());
        assert!(r.read_bytes(u64::MAX, &mut [0; 2]).is_err());
        assert!(r.zero(4095, 2).is_err());
    }

    #[test]
    fn unaligned_byte_copies() {
        let (_d, r) = region(4096);
        let data: Vec<u8> = (0..37).collect();
        r.write_bytes(3, &data).unwrap();
        let mut back = vec![0u8; 37];
        r.read_bytes(3, &mut back).unwrap();
        assert_eq!(back, data);
        r.zero(5, 20).unwrap();
        r.read_bytes(3, &mut back).unwrap();
        assert_eq!(&back[..2], &[0, 1]);
        assert!(back[2..22].iter().all(|b| *b == 0));
        assert_eq!(back[22], 22);
    }

    #[test]
    fn a_short_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short");
        std::fs::write(&path, [0u8; 100]).unwrap();
        assert!(matches!(
            Region::open(&path, 4096),
            Err(RegionError::Size { actual: 100, .. })
        ));
        assert!(matches!(
            Region::open(&dir.path().join("none"), 4096),
            Err(RegionError::Open { .. })
        ));
    }
}
