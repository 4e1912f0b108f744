import Testing

/// The parent of every suite in this target: each starts real processes (relays, the emulator,
/// moto, proxies) on shared loopback ports and a shared machine, so they run one at a time
/// (`.serialized` reaches every suite nested in it), as they did under XCTest.
@Suite(.serialized) enum AcceptanceSuite {}
