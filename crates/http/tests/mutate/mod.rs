//! Byte-level mutation shared by the fuzz targets: a valid input with a
//! few bytes inserted, deleted or replaced.

use proptest::prelude::*;

/// One edit: a position (taken modulo the length), a byte, and the kind
/// (0 insert, 1 delete, otherwise replace).
pub type Edit = (usize, u8, u8);

/// One to five edits.
pub fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6)
}

/// `b` with `edits` applied in order.
pub fn apply(mut b: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for &(at, byte, kind) in edits {
        let i = if b.is_empty() { 0 } else { at % (b.len() + 1) };
        match kind {
            0 => b.insert(i, byte),
            1 if i < b.len() => {
                b.remove(i);
            }
            _ if i < b.len() => b[i] = byte,
            _ => b.push(byte),
        }
    }
    b
}
