#if canImport(Glibc)
    import Glibc
#endif

/// Names the calling thread for the kernel, where `top -H`, `ps -L`, `perf` and
/// `/proc/<pid>/task/<tid>/comm` read it. Foundation's `Thread.name` on Linux keeps the name to
/// itself, so without this every relay thread shows the Dispatch pool's name.
package enum ThreadName {
    /// The kernel keeps 15 bytes of a thread's name; the rest is cut.
    package static let maxBytes = 15

    /// Sets the calling thread's name (ASCII; cut to `maxBytes`). Written to
    /// `/proc/thread-self/comm`: Glibc's `pthread_setname_np` is a GNU extension Swift does not
    /// import, and `prctl` is variadic. A failure leaves the old name; nothing depends on it.
    package static func setCurrent(_ name: String) {
        let bytes = Array(name.utf8.prefix(maxBytes))
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
