import Testing

@testable import Downstream

@Suite struct IndexedHeapTests {
    @Test func popsInOrder() {
        var heap = IndexedHeap<String, Int>()
        for (key, value) in [("c", 3), ("a", 1), ("e", 5), ("b", 2), ("d", 4)] {
            heap.update(value, for: key)
        }
        var popped: [String] = []
        while let first = heap.popFirst() { popped.append(first.key) }
        #expect(popped == ["a", "b", "c", "d", "e"])
    }

    @Test func updatesAndRemovesByKey() {
        var heap = IndexedHeap<String, Int>()
        for (key, value) in [("a", 1), ("b", 2), ("c", 3)] { heap.update(value, for: key) }
        heap.update(0, for: "c")
        #expect(heap.first?.key == "c")
        #expect(heap.remove("c") == 0)
        #expect(heap.remove("missing") == nil)
        heap.update(10, for: "a")
        #expect(heap.first?.key == "b")
        #expect(heap["a"] == 10)
        #expect(heap.count == 2)
        #expect(!heap.contains("c"))
    }

    @Test func randomOperationsMatchASortedReference() {
        var heap = IndexedHeap<Int, Int>()
        var reference: [Int: Int] = [:]
        for _ in 0..<20_000 {
            let key = Int.random(in: 0..<200)
            switch Int.random(in: 0..<4) {
            case 0, 1:
                let value = Int.random(in: 0..<1000)
                heap.update(value, for: key)
                reference[key] = value
            case 2:
                #expect(heap.remove(key) == reference.removeValue(forKey: key))
            default:
                let first = heap.popFirst()
                let smallest = reference.values.min()
                #expect(first?.element == smallest)
                if let first { reference[first.key] = nil }
            }
            #expect(heap.count == reference.count)
        }
    }
}
