import Testing

/// The parent of every end-to-end suite. Its tests start real processes, sockets, nginx and headless
/// browsers, so they run one at a time: `.serialized` applies to every suite and test nested in it.
@Suite(.serialized) enum EndToEndSuite {}
