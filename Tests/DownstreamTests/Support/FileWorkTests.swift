import Dispatch
import Testing

@testable import Downstream

/// Blocking file work runs on the file-work queue, and its value or typed error comes back to
/// the task that waits for it.
struct FileWorkTests {
    struct Failure: Error, Equatable {
        let reason: String
    }

    @Test func aValueIsMadeOnTheFileWorkQueue() async {
        let key = DispatchSpecificKey<String>()
        FileWork.queue.setSpecific(key: key, value: "file work")
        let found = await FileWork.value { DispatchQueue.getSpecific(key: key) }
        #expect(found == "file work")
        #expect(DispatchQueue.getSpecific(key: key) == nil)
    }

    @Test func anErrorComesBackAsItsOwnType() async {
        await #expect(throws: Failure(reason: "no disk")) {
            _ = try await FileWork.value { () throws(Failure) -> Int in throw Failure(reason: "no disk") }
        }
        let value = try? await FileWork.value { () throws(Failure) -> Int in 42 }
        #expect(value == 42)
    }
}
