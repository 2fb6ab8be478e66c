/// A binary min-heap of elements identified by key, whose elements can be found, changed and
/// removed by key in O(log n). The smallest element comes out first.
struct IndexedHeap<Key: Hashable, Element: Comparable> {
    private var storage: [(key: Key, element: Element)] = []
    private var positions: [Key: Int] = [:]

    init() {}

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The first element and its key.
    var first: (key: Key, element: Element)? { storage.first }

    func contains(_ key: Key) -> Bool {
        positions[key] != nil
    }

    subscript(key: Key) -> Element? {
        positions[key].map { storage[$0].element }
    }

    /// Inserts `element` for `key`, or replaces the element of `key` and restores the order.
    mutating func update(_ element: Element, for key: Key) {
        if let position = positions[key] {
            storage[position].element = element
            restore(from: position)
        } else {
            storage.append((key, element))
            positions[key] = storage.count - 1
            siftUp(from: storage.count - 1)
        }
    }

    /// Removes the element of `key`; returns it.
    @discardableResult
    mutating func remove(_ key: Key) -> Element? {
        guard let position = positions[key] else { return nil }
        let removed = storage[position].element
        let last = storage.count - 1
        if position != last {
            swapAt(position, last)
        }
        storage.removeLast()
        positions[key] = nil
        if position < storage.count {
            restore(from: position)
        }
        return removed
    }

    /// Removes and returns the first element.
    mutating func popFirst() -> (key: Key, element: Element)? {
        guard let first = storage.first else { return nil }
        remove(first.key)
        return first
    }

    private mutating func restore(from position: Int) {
        if position > 0, storage[position].element < storage[(position - 1) / 2].element {
            siftUp(from: position)
        } else {
            siftDown(from: position)
        }
    }

    private mutating func siftUp(from position: Int) {
        var child = position
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child].element < storage[parent].element else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from position: Int) {
        var parent = position
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < storage.count, storage[left].element < storage[first].element {
                first = left
            }
            if right < storage.count, storage[right].element < storage[first].element {
                first = right
            }
            guard first != parent else { return }
            swapAt(parent, first)
            parent = first
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        storage.swapAt(a, b)
        positions[storage[a].key] = a
        positions[storage[b].key] = b
    }
}
