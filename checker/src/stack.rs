//! Recursion whose depth grows with the input, without stack overflow.
//!
//! The depth-first searches of the explorers recurse once per event added
//! (a graph of 10,000 events is 10,000 levels deep), and a worker thread's
//! stack is a few MiB. Each such recursion goes through [`deep`]: when less
//! than [`RED_ZONE`] bytes of stack remain, the rest of the recursion runs on
//! a new stack segment of [`SEGMENT`] bytes allocated on the heap
//! (`stacker`), freed when the call returns. So depth is bounded by memory,
//! like an explicit work stack, not by the thread's stack; below the red
//! zone a call costs one comparison of the stack pointer.

/// Stack that must remain before a recursive call runs on the current
/// segment: more than any one level of recursion plus the non-recursive
/// work it calls (consistency checks, completion) uses.
pub(crate) const RED_ZONE: usize = 1024 * 1024;

/// Size of each stack segment allocated when the red zone is reached.
pub(crate) const SEGMENT: usize = 16 * 1024 * 1024;

/// Runs `f`, on a fresh stack segment if the current one is nearly used up.
#[inline]
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::deep;

    fn depth(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // A frame of a few KiB per level, as in the explorers.
        let pad = std::hint::black_box([n as u8; 4096]);
        deep(|| depth(n - 1)) + u64::from(pad[0] == n as u8)
    }

    /// 20,000 levels of 4 KiB (80 MiB of frames in all) on a thread with a
    /// 256 KiB stack.
    #[test]
    fn a_deep_recursion_does_not_overflow() {
        let r = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| depth(20_000))
            .expect("a thread")
            .join()
            .expect("no overflow");
        assert_eq!(r, 20_000);
    }
}
