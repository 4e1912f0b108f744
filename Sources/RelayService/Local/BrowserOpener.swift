import CSpawn
import Foundation
import RelaySync

/// Opens a link in the person's browser with the configured command (`xdg-open`, `open`, or
/// `MUSTDO_BROWSER`), the link as its last argument. The child gets `/dev/null` for its input and output
/// (standard output is the MCP channel: nothing else may ever write to it), keeps standard error (its
/// complaints land in the server's log stream), inherits no other descriptor, and starts in a process
/// group of its own with default signal handling.
enum BrowserOpener {
    /// Whether the link was handed to a browser: the command started and did not fail within `patience`
    /// (openers such as `xdg-open` exit at once, 0 on success; a command still running is taken as
    /// having opened it).
    static func open(_ url: String, command: [String], patience: Duration = .seconds(3)) async -> Bool {
        guard let program = command.first else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let attributes = ChildSpawnAttributes()
        let argv = (command + [url]).map { strdup($0) } + [nil]
        defer { for string in argv { free(string) } }
        var child: pid_t = 0
        guard posix_spawnp(&child, program, &actions, &attributes.value, argv, environ) == 0 else { return false }
        let status = await exitStatus(child, within: patience)
        return status.map { $0 == 0 } ?? true
    }

    /// The child's exit status if it ends within `patience`, else nil; a thread reaps it either way.
    private static func exitStatus(_ child: pid_t, within patience: Duration) async -> Int32? {
        let result = Locked<Int32?>(nil)
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
            // WIFEXITED / WEXITSTATUS, which Swift does not import.
            let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            result.withLock { $0 = code }
        }
        thread.name = "browser-reaper"
        thread.start()
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if let status = result.withLock({ $0 }) { return status }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return result.withLock { $0 }
    }
}
