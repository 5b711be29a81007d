//! glibc functions newer than the portable binaries' floor (glibc 2.17,
//! `scripts/dist`) that the Rust standard library links against directly,
//! defined here as the raw system calls they wrap. Every nodebench binary
//! links core, so every one (test binaries included) carries them; the
//! executable's own definition is the one every caller gets, on old glibc
//! (which lacks the function) and new alike, and it does exactly what
//! glibc's does.

/// `gettid(2)` (glibc 2.30): the calling thread's id. The standard library
/// names threads in panic messages with it.
#[unsafe(no_mangle)]
pub extern "C" fn gettid() -> libc::pid_t {
    // SAFETY: SYS_gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as libc::pid_t }
}

/// `statx(2)` (glibc 2.28): the standard library's file metadata.
///
/// # Safety
/// As the system call: `path` is a NUL-terminated string and `buf` points
/// to a writable `struct statx`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn statx(
    dirfd: libc::c_int,
    path: *const libc::c_char,
    flags: libc::c_int,
    mask: libc::c_uint,
    buf: *mut libc::statx,
) -> libc::c_int {
    // SAFETY: the caller's arguments, passed on as glibc's wrapper does.
    unsafe { libc::syscall(libc::SYS_statx, dirfd, path, flags, mask, buf) as libc::c_int }
}

/// `getrandom(2)` (glibc 2.25): the standard library's random keys.
///
/// # Safety
/// As the system call: `buf` points to `len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn getrandom(
    buf: *mut libc::c_void,
    len: libc::size_t,
    flags: libc::c_uint,
) -> libc::ssize_t {
    // SAFETY: the caller's arguments, passed on as glibc's wrapper does.
    unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) as libc::ssize_t }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gettid_is_the_kernels_thread_id() {
        // SAFETY: as above.
        let raw = unsafe { libc::syscall(libc::SYS_gettid) } as libc::pid_t;
        assert_eq!(super::gettid(), raw);
        // Another thread has another id.
        let other = std::thread::spawn(|| super::gettid()).join().unwrap();
        assert_ne!(other, raw);
        assert!(other > 0);
    }

    #[test]
    fn statx_and_getrandom_are_the_system_calls() {
        // SAFETY: an all-zero statx is a valid buffer for the call to fill.
        let mut st: libc::statx = unsafe { std::mem::zeroed() };
        // SAFETY: a literal path and a statx buffer of our own.
        let rc = unsafe {
            super::statx(
                libc::AT_FDCWD,
                c"/proc/self/exe".as_ptr(),
                0,
                libc::STATX_SIZE,
                &mut st,
            )
        };
        assert_eq!(rc, 0);
        let exe = std::fs::metadata("/proc/self/exe").unwrap();
        assert_eq!(st.stx_size, exe.len());
        // SAFETY: as above.
        let rc = unsafe {
            super::statx(
                libc::AT_FDCWD,
                c"/nonexistent/x".as_ptr(),
                0,
                libc::STATX_SIZE,
                &mut st,
            )
        };
        assert_eq!(rc, -1);
        assert_eq!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::ENOENT)
        );
        let mut buf = [0u8; 64];
        // SAFETY: a buffer of our own and its length.
        let n = unsafe { super::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
        assert_eq!(n, 64);
        assert!(buf.iter().any(|&b| b != 0));
    }
}
