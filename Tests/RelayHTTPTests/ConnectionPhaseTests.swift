import Foundation
import Testing

@testable import RelayHTTP

/// A connection's life as the event loop moves it: read, serve, read again or close; the closing
/// answer written, then the lingering close, then closed. Anything else is refused (the server
/// tests show the loop takes only the allowed moves).
@Suite struct ConnectionPhaseTests {
    typealias Phase = Connection.Phase
    static let all: [Phase] = [.reading, .serving, .closing, .lingering, .closed]

    @Test func theAllowedMovesAreExactlyALife() {
        let allowed: Set<String> = [
            "reading→serving", "reading→closing", "serving→reading", "serving→closing", "closing→closing",
            "closing→lingering", "reading→closed", "serving→closed", "closing→closed", "lingering→closed",
        ]
        for from in Self.all {
            for to in Self.all {
                #expect(from.allows(to) == allowed.contains("\(from)→\(to)"), "\(from) → \(to)")
            }
        }
    }

    @Test func aConnectionReadsServesAndCloses() {
        let connection = Connection(fd: -1, peer: nil, countedBlock: nil, limits: HTTPParserLimits())
        #expect(connection.phase == .reading && connection.canProcess)
        connection.move(to: .serving)
        #expect(connection.busy && !connection.canProcess)
        connection.move(to: .reading)
        connection.move(to: .serving)
        connection.move(to: .closing)
        #expect(connection.closeAfterWrite && !connection.busy && !connection.canProcess)
        connection.move(to: .lingering)
        connection.move(to: .closed)
        #expect(connection.closed && !connection.lingering)
    }

    /// A move the life does not allow is a bug in the loop: the process stops rather than serve
    /// a second request on a connection that is closing, or read from one that is closed.
    @Test func anIllegalMoveStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let connection = Connection(fd: -1, peer: nil, countedBlock: nil, limits: HTTPParserLimits())
            connection.move(to: .closing)
            connection.move(to: .serving)
        }
        await #expect(processExitsWith: .failure) {
            let connection = Connection(fd: -1, peer: nil, countedBlock: nil, limits: HTTPParserLimits())
            connection.move(to: .closed)
            connection.move(to: .reading)
        }
    }
}
