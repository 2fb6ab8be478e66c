@testable import Downstream
import Foundation
import Testing

/// What a failed request leads to, for an attempt and for a segment alike.
@Suite struct FailureRecoveryTests {
    static let url = URL(string: "http://files.test/file.bin")!

    static func recovery(networkIsUp: Bool, maximumRetries: Int = 3) -> FailureRecovery {
        var policy = RetryPolicy()
        policy.maximumRetries = maximumRetries
        policy.jitter = 0
        return FailureRecovery(retryPolicy: policy, networkMonitor: FixedNetwork(isUp: networkIsUp))
    }

    @Test func aLostNetworkIsWaitedForWithoutSpendingARetry() {
        let lost = DownloadError.network(.notConnectedToInternet, reason: "offline")
        #expect(Self.recovery(networkIsUp: false).verdict(after: lost, from: Self.url, retry: 1) == .waitForNetwork)
        // Even with no retry left: waiting for the network is no retry.
        #expect(
            Self.recovery(networkIsUp: false, maximumRetries: 0).verdict(after: lost, from: Self.url, retry: 1)
                == .waitForNetwork)
        // The network is there: the same failure is the server's or the path's, and retried.
        #expect(
            Self.recovery(networkIsUp: true).verdict(after: lost, from: Self.url, retry: 1, random: 0)
                == .retry(after: .seconds(1)))
    }

    @Test func aServerFailureIsRetriedAsThePolicySaysWhateverTheNetwork() {
        let busy = DownloadError.httpStatus(503)
        let down = Self.recovery(networkIsUp: false)
        #expect(down.verdict(after: busy, from: Self.url, retry: 2, random: 0) == .retry(after: .seconds(2)))
        #expect(down.verdict(after: busy, from: Self.url, retry: 4, random: 0) == .none)
        #expect(down.verdict(after: .httpStatus(404), from: Self.url, retry: 1, random: 0) == .none)
    }
}
