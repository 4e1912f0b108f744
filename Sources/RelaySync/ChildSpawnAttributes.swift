import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `posix_spawn` attributes for a child started as a shell would start it: in a process group of its
/// own (a signal to this one's group does not reach it), with no signal blocked, and the dispositions
/// this process may have changed (the relay's libraries ignore SIGPIPE) back to their defaults. The one
/// set of rules for every child the relay or its tests start.
package final class ChildSpawnAttributes {
    /// The attributes, for `posix_spawn(…, &attributes.value, …)`.
    package var value = posix_spawnattr_t()

    package init() {
        posix_spawnattr_init(&value)
        posix_spawnattr_setflags(
            &value, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&value, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&value, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&value, &defaults)
    }

    deinit { posix_spawnattr_destroy(&value) }
}
