//! A trace of the resolver's table accesses, for sizing a bounded cache in front of the store
//! (`bench/resolver_access.py`). Compiled in with the `access-trace` feature only, and written to
//! the sink the caller sets (`set_sink`: this crate does no I/O; the engine's sink is the file
//! `SEXTANT_ACCESS_TRACE` names): 9-byte records, a tag then a little-endian `u64`. Tags: `S` a
//! definition's position, `B` a typed binding's position, `N` a name-list lookup that found a
//! list and `E` one that found none (the list and the key's hash folded), `F` a file's import
//! table, `M` a mark the caller sets ([`mark`]: the phase or batch of the accesses that follow).

/// Sets a mark: `phase` 0 for the tables' construction, 1 for the import passes, 2 + b for
/// batch `b` of references.
pub fn mark(phase: u64) {
    #[cfg(feature = "access-trace")]
    record(b'M', phase);
    #[cfg(not(feature = "access-trace"))]
    let _ = phase;
}

/// Where records go (the caller's writer: this crate does no I/O of its own). Without the
/// feature the writer is dropped and nothing is recorded.
pub fn set_sink(sink: Box<dyn std::io::Write + Send>) {
    #[cfg(feature = "access-trace")]
    {
        *OUT.lock().unwrap_or_else(|e| e.into_inner()) = Some(sink);
    }
    #[cfg(not(feature = "access-trace"))]
    drop(sink);
}

/// Flushes the trace (the caller's end of resolution).
pub fn finish() {
    #[cfg(feature = "access-trace")]
    if let Some(out) = OUT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = std::io::Write::flush(out);
    }
}

#[cfg(feature = "access-trace")]
static OUT: std::sync::Mutex<Option<Box<dyn std::io::Write + Send>>> = std::sync::Mutex::new(None);

/// Appends one record (nothing without a sink).
#[cfg(feature = "access-trace")]
pub(crate) fn record(tag: u8, value: u64) {
    if let Some(out) = OUT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let mut record = [tag; 9];
        record[1..].copy_from_slice(&value.to_le_bytes());
        let _ = std::io::Write::write_all(out, &record);
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
