import Testing

@testable import Downstream

@Suite struct BackgroundEventsMachineTests {
    typealias Machine = BackgroundEventsMachine<String>

    @Test func theHandlerWaitsForTheSessionsLastEvent() {
        var machine = Machine()
        #expect(machine.handlerArrived("h").isEmpty)
        #expect(machine.sessionDidFinishEvents() == ["h"])
    }

    @Test func aHandlerArrivingAfterTheLastEventIsCalledAtOnce() {
        var machine = Machine()
        #expect(machine.sessionDidFinishEvents().isEmpty)
        #expect(machine.handlerArrived("h") == ["h"])
    }

    @Test func theHandlerWaitsForEveryFinishedDownload() {
        var machine = Machine()
        machine.workBegan()
        machine.workBegan()
        #expect(machine.handlerArrived("h").isEmpty)
        #expect(machine.sessionDidFinishEvents().isEmpty)
        #expect(machine.workEnded().isEmpty)
        #expect(machine.workEnded() == ["h"])
    }

    @Test func aHandlerIsNeverCalledTwice() {
        var machine = Machine()
        _ = machine.handlerArrived("h")
        #expect(machine.sessionDidFinishEvents() == ["h"])
        #expect(machine.sessionDidFinishEvents().isEmpty)
        machine.workBegan()
        #expect(machine.workEnded().isEmpty)
    }

    @Test func theNextWakeWaitsForItsOwnEvents() {
        var machine = Machine()
        _ = machine.handlerArrived("first")
        #expect(machine.sessionDidFinishEvents() == ["first"])
        #expect(machine.handlerArrived("second").isEmpty)
        #expect(machine.sessionDidFinishEvents() == ["second"])
    }

    @Test func everyOrderCallsEachHandlerExactlyOnce() {
        enum Step: CaseIterable { case handler, finishEvents, beginWork, endWork }
        for _ in 0..<2000 {
            var machine = Machine()
            var called: [String] = []
            var handlers = 0
            var work = 0
            for _ in 0..<12 {
                switch Step.allCases.randomElement()! {
                case .handler:
                    handlers += 1
                    called += machine.handlerArrived("h\(handlers)")
                case .finishEvents:
                    called += machine.sessionDidFinishEvents()
                case .beginWork:
                    work += 1
                    machine.workBegan()
                case .endWork:
                    guard work > 0 else { continue }
                    work -= 1
                    called += machine.workEnded()
                }
                #expect(Set(called).count == called.count, "a handler was called twice: \(called)")
                #expect(machine.pendingWork == work)
            }
            // Once the work is done and the session says it delivered everything, no handler
            // that arrived is left waiting.
            while work > 0 {
                work -= 1
                called += machine.workEnded()
            }
            called += machine.sessionDidFinishEvents()
            #expect(called.count == handlers)
            #expect(Set(called).count == handlers)
        }
    }
}
