import Testing

@testable import RelayHTTP

@Suite struct OriginRouterTests {
    let origin = "https://api.example.com"

    @Test func theFirstExchangeProbesAndTheOthersWaitForItsAnswer() {
        var router = OriginRouter<Int>()
        #expect(router.route(origin, 1) == .probe)
        #expect(router.route(origin, 2) == .held)
        #expect(router.route(origin, 3) == .held)
        #expect(router.route("https://other.example.com", 4) == .probe)
        #expect(router.waitingCount == 2)
        let (route, released) = router.answered(origin, multiplexes: true)
        #expect(route == .multiplexed)
        #expect(released == [2, 3])
        #expect(router.waitingCount == 0)
        #expect(router.route(origin, 5) == .multiplexed)
    }

    @Test func anHTTP1AnswerSendsEveryoneToTheParallelPoolUntilTheOriginChanges() {
        var router = OriginRouter<Int>()
        _ = router.route(origin, 1)
        _ = router.route(origin, 2)
        #expect(router.answered(origin, multiplexes: false) == (.parallel, [2]))
        #expect(router.route(origin, 3) == .parallel)
        _ = router.answered(origin, multiplexes: true)
        #expect(router.route(origin, 4) == .multiplexed)
    }

    @Test func aFailedProbeReleasesTheWaitingAndTheNextExchangeProbesAgain() {
        var router = OriginRouter<Int>()
        _ = router.route(origin, 1)
        _ = router.route(origin, 2)
        #expect(router.probeFailed(origin) == [2])
        #expect(router.route(origin, 3) == .probe)
        // A late answer from an exchange released earlier teaches too and releases the waiting.
        _ = router.route(origin, 4)
        #expect(router.answered(origin, multiplexes: true) == (.multiplexed, [4]))
    }

    @Test func waitingExchangesCanBeTakenBack() {
        var router = OriginRouter<Int>()
        _ = router.route(origin, 1)
        for item in 2...6 { _ = router.route(origin, item) }
        #expect(router.removeWaiting { $0.isMultiple(of: 2) } == [2, 4, 6])
        #expect(router.waitingCount == 2)
        #expect(router.answered(origin, multiplexes: true).released == [3, 5])
    }

    @Test func theTableStaysBoundedAndKeepsProbesInFlight() {
        var router = OriginRouter<Int>(capacity: 3)
        _ = router.route("https://a", 0)
        _ = router.route("https://a", 1)
        for host in ["b", "c"] {
            _ = router.route("https://\(host)", 0)
            _ = router.answered("https://\(host)", multiplexes: true)
        }
        // Full: the learnt origins are forgotten, the probe of `a` and its waiting exchange stay.
        #expect(router.route("https://d", 0) == .probe)
        #expect(router.route("https://b", 0) == .probe)
        #expect(router.answered("https://a", multiplexes: false).released == [1])
    }
}
