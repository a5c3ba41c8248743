//! Giving freed memory back to the system. glibc's malloc keeps freed memory for reuse, and by
//! default serves a large allocation from its heap once one of that size was freed, so the
//! request bodies of a burst of clients would stay resident after they closed. With a fixed
//! mmap threshold every large buffer is mapped and unmapped on its own; `give_back` returns
//! what the heaps hold free.

/// Allocations from this size on get their own mapping, returned to the system when freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 << 10;

/// Sets the allocator up for the server (once, at start).
pub fn tune() {
    // SAFETY: mallopt(3) only sets a malloc parameter.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Returns the free memory of malloc's heaps to the system (after request bodies are freed).
pub fn give_back() {
    // SAFETY: malloc_trim(3) only releases free memory of malloc's own heaps.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}
