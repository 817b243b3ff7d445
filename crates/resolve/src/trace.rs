//! A trace of the resolver's table accesses, for sizing a bounded cache in front of the store
//! (`bench/resolver_access.py`). Compiled in with the `access-trace` feature only, and written
//! only when `SEXTANT_ACCESS_TRACE` names a file: 9-byte records (a tag, then a little-endian
//! `u64`). Tags: `S` a definition's position, `B` a typed binding's position, `N` a name-list
//! lookup that found a list and `E` one that found none (the list and the key's hash folded), `F` a file's import table, `M` a mark the
//! caller sets (`mark`: the phase or batch the accesses that follow belong to).

/// Sets a mark: `phase` 0 for the tables' construction, 1 for the import passes, 2 + b for
/// batch `b` of references.
pub fn mark(phase: u64) {
    #[cfg(feature = "access-trace")]
    record(b'M', phase);
    #[cfg(not(feature = "access-trace"))]
    let _ = phase;
}

/// Flushes the trace (the caller's end of resolution).
pub fn finish() {
    #[cfg(feature = "access-trace")]
    if let Some(out) = OUT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = std::io::Write::flush(out);
    }
}

#[cfg(feature = "access-trace")]
static OUT: std::sync::Mutex<Option<std::io::BufWriter<std::fs::File>>> =
    std::sync::Mutex::new(None);

#[cfg(feature = "access-trace")]
static OPENED: std::sync::Once = std::sync::Once::new();

/// Appends one record (nothing when `SEXTANT_ACCESS_TRACE` is unset).
#[cfg(feature = "access-trace")]
pub(crate) fn record(tag: u8, value: u64) {
    use std::io::Write;
    OPENED.call_once(|| {
        if let Some(path) = std::env::var_os("SEXTANT_ACCESS_TRACE")
            && let Ok(file) = std::fs::File::create(path)
        {
            *OUT.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(std::io::BufWriter::with_capacity(1 << 20, file));
        }
    });
    if let Some(out) = OUT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = out.write_all(&[tag]);
        let _ = out.write_all(&value.to_le_bytes());
    }
}

/// Records an access when the feature is on; nothing otherwise.
macro_rules! traced {
    ($tag:expr, $value:expr) => {
        #[cfg(feature = "access-trace")]
        $crate::trace::record($tag, $value as u64);
    };
}
pub(crate) use traced;
