@testable import Downstream
import Foundation

/// A disk whose writes wait until the test lets them through: "the disk is behind", on cue and
/// for as long as the test says, with no clock involved.
final class GatedDisk: DiskSimulation {
    private let permits = DispatchSemaphore(value: 0)
    private let state = Locked((isOpen: false, written: 0))

    /// Writes finished so far.
    var written: Int { state.withLock { $0.written } }

    func account(_ bytes: Int) {
        if !state.withLock({ $0.isOpen }) {
            permits.wait()
        }
        state.withLock { $0.written += 1 }
    }

    /// Lets `count` more writes through.
    func allow(_ count: Int = 1) {
        for _ in 0..<count { permits.signal() }
    }

    /// Lets every write through from now on. (Writes of one file never wait side by side: one
    /// permit frees the one that waits.)
    func open() {
        state.withLock { $0.isOpen = true }
        permits.signal()
    }
}
