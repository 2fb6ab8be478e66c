@testable import Downstream
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1)))
struct NetworkMonitorTests {
    /// A monitor whose probe the test sets, on a manual clock.
    static func monitor(_ isUp: Locked<Bool>, clock: ManualClock) -> ProbingNetworkMonitor {
        ProbingNetworkMonitor(clock: clock, maximumInterval: .seconds(8)) { _, _ in isUp.value }
    }

    static let remote = URL(string: "https://example.com/file.bin")!

    @Test func probesAgainAfterGrowingIntervalsUntilTheNetworkIsBack() async throws {
        let isUp = Locked(false)
        let clock = ManualClock()
        let monitor = Self.monitor(isUp, clock: clock)
        #expect(!monitor.isReachable(Self.remote))
        let waiting = Task { await monitor.waitUntilReachable(Self.remote) }
        var sleeps = clock.sleeps.makeAsyncIterator()
        var intervals: [Duration] = []
        for sleep in 1...6 {
            let interval = try #require(await sleeps.next())
            intervals.append(interval)
            if sleep == 6 {
                // Back before the probe this sleep ends in.
                isUp.withLock { $0 = true }
            }
            clock.advance(by: interval)
        }
        await waiting.value
        #expect(intervals.map { $0 / .seconds(1) } == [1, 2, 4, 8, 8, 8])
        #expect(monitor.isReachable(Self.remote))
    }

    @Test func aReportedChangeIsProbedAtOnce() async {
        let isUp = Locked(false)
        let clock = ManualClock()
        let monitor = Self.monitor(isUp, clock: clock)
        let waiting = Task { await monitor.waitUntilReachable(Self.remote) }
        var sleeps = clock.sleeps.makeAsyncIterator()
        _ = await sleeps.next()
        isUp.withLock { $0 = true }
        monitor.networkChanged()
        // No clock advance: the change alone wakes the probe.
        await waiting.value
    }

    @Test func aChangeBetweenTheProbeAndTheWaitIsNotMissed() async {
        let signal = ChangeSignal()
        let ticket = signal.register()
        signal.notify()
        await signal.wait(ticket)
    }

    @Test func aCancelledWaitReturns() async {
        let isUp = Locked(false)
        let monitor = Self.monitor(isUp, clock: ManualClock())
        let waiting = Task { await monitor.waitUntilReachable(Self.remote) }
        waiting.cancel()
        await waiting.value
        let signal = ChangeSignal()
        let waiter = Task { await signal.wait(signal.register()) }
        waiter.cancel()
        await waiter.value
    }

    @Test(arguments: ["http://127.0.0.1:8080/a", "http://localhost/a", "http://[::1]:80/a", "http://127.3.4.5/"])
    func loopbackHostsAreAlwaysReachableForTheSystemMonitor(_ url: String) throws {
        #expect(ProbingNetworkMonitor.isLoopback(try #require(URL(string: url))))
        #expect(ProbingNetworkMonitor.system(clock: ManualClock()).isReachable(try #require(URL(string: url))))
        #expect(!ProbingNetworkMonitor.isLoopback(Self.remote))
    }

    /// The interfaces of the machine the tests run on: whatever they are, the probe answers
    /// without blocking; on a machine with a non-loopback interface up, it says so.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/sys/class/net"), "reads Linux's /sys/class/net"))
    func theInterfaceProbeReadsTheMachinesInterfaces() throws {
        let hasOther = try FileManager.default.contentsOfDirectory(atPath: "/sys/class/net").contains { name in
            guard name != "lo",
                let state = try? String(contentsOfFile: "/sys/class/net/\(name)/operstate", encoding: .utf8)
            else { return false }
            return state.trimmingCharacters(in: .whitespacesAndNewlines) == "up"
        }
        if hasOther {
            #expect(NetworkInterfaces.hasUsableInterface())
        }
    }
}
