@testable import Downstream
import Testing

/// A checkpoint is due after its bytes or its interval on the manager's clock, whichever comes
/// first.
@Suite struct CheckpointScheduleTests {
    @Test func aCheckpointIsDueAfterItsBytesOrItsIntervalOnTheInjectedClock() {
        let clock = ManualClock()
        var settings = CheckpointSettings()
        settings.bytes = 1_000
        settings.interval = .seconds(2)
        settings.clock = ClockReadings(clock)
        var schedule = CheckpointSchedule()
        schedule.restart(after: 500, settings)
        #expect(!schedule.isDue(at: 1_499))
        #expect(schedule.isDue(at: 1_500))
        clock.advance(by: .milliseconds(1_999))
        #expect(!schedule.isDue(at: 600))
        clock.advance(by: .milliseconds(1))
        #expect(schedule.isDue(at: 600))
        schedule.restart(after: 600, settings)
        #expect(!schedule.isDue(at: 600))
    }
}
