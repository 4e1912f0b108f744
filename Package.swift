// swift-tools-version:6.0
// Every target builds in Swift 6 language mode: C handles are owned by `final class`es behind
// shims, so strict concurrency does not fight the C APIs (see docs/architecture.md).
import PackageDescription

let package = Package(
    name: "MustDoRelay",
    products: [
        .executable(name: "mustdo-relay", targets: ["mustdo-relay"]),
        .executable(name: "mustdo-relayctl", targets: ["mustdo-relayctl"]),
        .executable(name: "mustdo-relay-demo", targets: ["mustdo-relay-demo"]),
        .executable(name: "cloudkit-emulator", targets: ["cloudkit-emulator"]),
    ],
    targets: [
        // C system libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(name: "CSpawn"),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // Libraries, lowest layer first.
        .target(name: "RelayJSON"),
        // The base every layer may use: `Locked` (a pthread-mutex box ThreadSanitizer understands; it cannot see
        // Synchronization.Mutex on Linux) and `WallClock` (dates as a seam).
        .target(name: "RelaySync"),
        // Child processes for the tests: posix_spawn with nothing inherited (Foundation's Process leaks
        // descriptors into children started meanwhile on other threads; see Subprocess.swift).
        .target(name: "RelayTestSupport", dependencies: ["CSpawn", "RelaySync", "RelayHTTP"]),
        .target(
            name: "RelayHTTP", dependencies: ["RelayJSON", "RelaySync", "CEpoll", "CCurl"]),
        // The to-do domain (pure values and rules) and the nine tools on RelayMCP, reaching CloudKit through a
        // per-grant `CloudKitSession` that RelayService implements on the vault and the grant store.
        .target(
            name: "RelayTodo", dependencies: ["RelayJSON", "RelayCloudKit", "RelayCrypto", "RelayMCP", "RelaySync"]),
        .target(name: "RelayMCP", dependencies: ["RelayHTTP", "RelayJSON", "RelaySync"]),
        .target(name: "RelayCrypto", dependencies: ["COpenSSL"]),
        .target(name: "RelayStore", dependencies: ["CSQLite", "RelayJSON", "RelaySync"]),
        // The store conformance suite, a library so every backend's tests (DynamoDB too) can run it.
        .target(name: "RelayStoreConformance", dependencies: ["RelayStore", "RelayJSON", "RelaySync"]),
        // The vault stores nothing itself: it needs no RelayStore.
        .target(name: "RelayVault", dependencies: ["RelayCrypto", "RelaySync"]),
        .target(
            name: "RelayOAuth", dependencies: ["RelayHTTP", "RelayJSON", "RelayCrypto", "RelayStore", "RelaySync"]),
        .target(name: "RelayCloudKit", dependencies: ["RelayHTTP", "RelayJSON"]),
        .target(name: "RelayEmulator", dependencies: ["RelayHTTP", "RelayJSON", "RelaySync", "COpenSSL"]),
        .target(
            name: "RelayAWS",
            dependencies: ["RelayHTTP", "RelayCrypto", "RelayStore", "RelayVault", "RelayJSON", "RelaySync"]),
        // The service: configuration, backends, `buildApplication`, grants, wiring, observability, and the
        // `mustdo-relay` command line (`serve`, `local`). It must never depend on RelayEmulator: the binary
        // that serves people carries no emulator (EndToEndTests/EmulatorFreeBinaryTests checks the symbols).
        .target(
            name: "RelayService",
            dependencies: [
                "RelayHTTP", "RelayJSON", "RelayCrypto", "RelayStore", "RelayVault", "RelayAWS", "RelayCloudKit",
                "RelayMCP", "RelayTodo", "RelayOAuth", "RelaySync", "CMalloc", "CSpawn",
            ]
        ),
        // The operator's commands: what only `mustdo-relayctl` runs.
        .target(
            name: "RelayOperator",
            dependencies: [
                "RelayService", "RelayHTTP", "RelayJSON", "RelayCrypto", "RelayStore", "RelayVault", "RelayAWS",
                "RelayCloudKit", "RelayTodo", "RelayOAuth",
            ]
        ),
        // The local demo: the service with the CloudKit emulator, the only service code that links it.
        .target(name: "RelayDemo", dependencies: ["RelayService", "RelayEmulator", "RelayVault", "RelayHTTP"]),

        // Thin executables.
        .executableTarget(name: "mustdo-relay", dependencies: ["RelayService"]),
        .executableTarget(name: "mustdo-relayctl", dependencies: ["RelayOperator"]),
        .executableTarget(name: "mustdo-relay-demo", dependencies: ["RelayDemo", "RelayService"]),
        .executableTarget(name: "cloudkit-emulator", dependencies: ["RelayEmulator"]),
        // bench/oauth: bearer validation cost and token endpoint throughput on real SQLite.
        .executableTarget(name: "oauth-bench", dependencies: ["RelayOAuth", "RelayVault", "RelayStore", "RelayHTTP"]),
        // Child process of the SQLite kill -9 and lock tests.
        .executableTarget(name: "store-crash-writer", dependencies: ["RelayStore", "RelayJSON", "CSQLite"]),
        // Latency benchmarks driven by bench/store.
        .executableTarget(name: "store-bench", dependencies: ["RelayStore", "RelayVault", "RelayCrypto", "RelayJSON"]),
        // `bench/cloudkit`: concurrent CloudKit lookups through the client against the emulator.
        .executableTarget(name: "cloudkit-bench", dependencies: ["RelayCloudKit", "RelayEmulator", "RelayHTTP"]),
        // `bench/list-todos`: list_todos latency and CloudKit calls by account size (issue 42).
        .executableTarget(
            name: "list-todos-bench",
            dependencies: ["RelayCloudKit", "RelayEmulator", "RelayHTTP", "RelayJSON", "RelayMCP", "RelayTodo"]),
        // libFuzzer entry points for the HTTP and JSON parsers; `make fuzz` builds them with -DFUZZING.
        .executableTarget(
            name: "fuzz-http-parser",
            dependencies: ["RelayHTTP"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "fuzz-json-parser",
            dependencies: ["RelayJSON"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),

        // Tests: one target per library, plus end-to-end tests through real sockets.
        .testTarget(name: "RelayJSONTests", dependencies: ["RelayJSON"]),
        .testTarget(name: "RelayOperatorTests", dependencies: ["RelayOperator", "RelayService"]),
        .testTarget(name: "RelayHTTPTests", dependencies: ["RelayTestSupport", "RelayHTTP", "RelayJSON"]),
        .testTarget(
            name: "RelayTodoTests",
            dependencies: ["RelayTestSupport", "RelayTodo", "RelayJSON", "RelayCloudKit", "RelayMCP", "RelayCrypto"]),
        // The nine tools through a real MCPEndpoint and CloudKitClient against the in-process emulator (and, in
        // e2e/, driven by the official MCP Python SDK).
        .testTarget(
            name: "RelayTodoIntegrationTests",
            dependencies: [
                "RelayTestSupport", "RelayTodo", "RelayMCP", "RelayCloudKit", "RelayEmulator", "RelayHTTP", "RelayJSON",
                "RelaySync", "RelayCrypto",
            ],
            exclude: ["e2e"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "RelayTestSupport", "RelayService", "RelayOperator", "RelayDemo", "RelayHTTP", "RelayJSON",
                "RelayCrypto", "RelayEmulator", "RelayStore", "RelaySync", "RelayOAuth",
            ],
            // e2e/: the Python and Selenium scripts; clients/: one replay fixture per real client (JSON).
            exclude: ["e2e", "clients"]
        ),
        // Several instances and faults: real `serve` processes, moto, the standalone emulator (issue 8).
        .testTarget(
            name: "AcceptanceTests",
            dependencies: [
                "RelayTestSupport",
                "RelayHTTP", "RelayJSON", "RelayCrypto", "RelayAWS", "RelaySync", "mustdo-relay", "mustdo-relayctl",
                "cloudkit-emulator",
            ],
            exclude: ["python"]
        ),
        .testTarget(name: "RelayTestSupportTests", dependencies: ["RelayTestSupport", "RelaySync", "RelayHTTP"]),
        .testTarget(
            name: "RelayServiceTests",
            dependencies: [
                "RelayTestSupport", "RelayService", "RelayAWS", "RelayJSON", "RelayOAuth", "RelayStore",
                "RelayCloudKit",
                "RelayTodo",
                "RelayHTTP", "RelayEmulator",
                "RelaySync",
            ]),
        .testTarget(
            name: "RelayMCPTests",
            dependencies: ["RelayTestSupport", "RelayMCP", "RelayHTTP", "RelayJSON", "RelaySync"],
            exclude: ["e2e"]),
        .testTarget(name: "RelayCryptoTests", dependencies: ["RelayCrypto"]),
        .testTarget(
            name: "RelayStoreTests",
            dependencies: [
                "RelayTestSupport", "RelayStore", "RelayStoreConformance", "RelayJSON", "RelaySync",
                "store-crash-writer",
            ]
        ),
        .testTarget(
            name: "RelayVaultTests",
            dependencies: ["RelayTestSupport", "RelayVault", "RelayCrypto", "RelaySync"]),
        .testTarget(
            name: "RelayOAuthTests",
            dependencies: [
                "RelayTestSupport", "RelayOAuth", "RelayHTTP", "RelayJSON", "RelayCrypto", "RelayStore", "RelayVault",
                "RelaySync",
            ]
        ),
        // The client against real servers: the relay's own server, scripted sockets, nginx with TLS and HTTP/2,
        // and an OpenSSL server of its own (`TicketTLSServer`, hence COpenSSL).
        .testTarget(
            name: "RelayHTTPClientTests", dependencies: ["RelayTestSupport", "RelayHTTP", "COpenSSL"],
            exclude: ["python"]),
        .testTarget(
            name: "RelayCloudKitTests",
            dependencies: ["RelayCloudKit", "RelayEmulator", "RelayHTTP", "RelayJSON", "RelayTestSupport"]),
        .testTarget(
            name: "RelayAWSTests",
            dependencies: [
                "RelayTestSupport",
                "RelayAWS", "RelayStore", "RelayStoreConformance", "RelayVault", "RelayCrypto", "RelayHTTP",
                "RelayJSON", "RelaySync",
            ],
            exclude: ["python"]
        ),
        .testTarget(
            name: "RelayEmulatorTests",
            dependencies: ["RelayEmulator", "RelayHTTP", "RelayJSON", "RelaySync", "RelayTestSupport"]),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    target.swiftSettings = settings
}
