import Testing

/// The parent of this target's suites on real sockets: they start servers, fill connection tables
/// and time deadlines, so they run one at a time (`.serialized` reaches every suite nested in it),
/// as they did under XCTest.
@Suite(.serialized, .timeLimit(.minutes(5))) enum SocketSuite {}
