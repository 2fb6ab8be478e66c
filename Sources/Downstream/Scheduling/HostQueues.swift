/// The queued downloads of every host: a binary min-heap per host, and one index of where each
/// queued download is (its host's heap and its place in it), so that a queued download is found,
/// re-ranked and removed in O(log n). A host is whatever the scheduler queues by: for the manager's,
/// a ``SchedulerLane`` (a host's downloads outside any group, or one group's downloads on a host).
///
/// One dictionary entry per queued download, of 24 bytes: an app may queue 100,000 downloads,
/// and at that size a dictionary holds two to three slots per entry.
struct HostQueues<ID: Hashable, Host: Hashable> {
    typealias Rank = SchedulerRank

    private struct Place {
        var queue: Int32
        var position: Int32
    }

    private struct Queue {
        var host: Host
        var heap: [(id: ID, rank: Rank)] = []
    }

    /// By number; the number of a queue that emptied is given to the next new host.
    private var queues: [Queue] = []
    private var numbers: [Host: Int32] = [:]
    private var freeNumbers: [Int32] = []
    private var places: [ID: Place] = [:]

    var count: Int { places.count }

    /// The hosts with queued downloads.
    var hosts: Dictionary<Host, Int32>.Keys { numbers.keys }

    func contains(_ id: ID) -> Bool { places[id] != nil }

    /// The host `id` is queued for.
    func host(of id: ID) -> Host? {
        places[id].map { queues[Int($0.queue)].host }
    }

    func rank(of id: ID) -> Rank? {
        places[id].map { queues[Int($0.queue)].heap[Int($0.position)].rank }
    }

    /// The rank of the first download queued for `host`.
    func firstRank(on host: Host) -> Rank? {
        numbers[host].flatMap { queues[Int($0)].heap.first?.rank }
    }

    /// Queues `id` for `host`, or re-ranks it if it is queued.
    mutating func update(_ id: ID, host: Host, rank: Rank) {
        if let place = places[id] {
            queues[Int(place.queue)].heap[Int(place.position)].rank = rank
            restore(queue: place.queue, from: Int(place.position))
            return
        }
        let queue = number(for: host)
        let position = queues[Int(queue)].heap.count
        queues[Int(queue)].heap.append((id, rank))
        places[id] = Place(queue: queue, position: Int32(position))
        siftUp(queue: queue, from: position)
    }

    /// Takes `id` out of its queue; returns its host.
    @discardableResult
    mutating func remove(_ id: ID) -> Host? {
        guard let place = places.removeValue(forKey: id) else { return nil }
        let queue = Int(place.queue)
        let position = Int(place.position)
        let host = queues[queue].host
        let last = queues[queue].heap.count - 1
        if position != last {
            queues[queue].heap.swapAt(position, last)
            places.updateValue(
                Place(queue: place.queue, position: Int32(position)), forKey: queues[queue].heap[position].id)
        }
        queues[queue].heap.removeLast()
        if queues[queue].heap.isEmpty {
            numbers[host] = nil
            freeNumbers.append(place.queue)
            queues[queue].heap = []
        } else if position < queues[queue].heap.count {
            restore(queue: place.queue, from: position)
        }
        return host
    }

    /// Takes the first download queued for `host` out of its queue.
    mutating func popFirst(on host: Host) -> (id: ID, rank: Rank)? {
        guard let queue = numbers[host], let first = queues[Int(queue)].heap.first else { return nil }
        remove(first.id)
        return first
    }

    private mutating func number(for host: Host) -> Int32 {
        if let number = numbers[host] { return number }
        let number: Int32
        if let free = freeNumbers.popLast() {
            number = free
            queues[Int(free)] = Queue(host: host)
        } else {
            precondition(queues.count < Int32.max, "more hosts than a queue number holds")
            number = Int32(queues.count)
            queues.append(Queue(host: host))
        }
        numbers[host] = number
        return number
    }

    private mutating func restore(queue: Int32, from position: Int) {
        let rank = queues[Int(queue)].heap[position].rank
        if position > 0, rank < queues[Int(queue)].heap[(position - 1) / 2].rank {
            siftUp(queue: queue, from: position)
        } else {
            siftDown(queue: queue, from: position)
        }
    }

    private mutating func siftUp(queue: Int32, from position: Int) {
        var child = position
        while child > 0 {
            let parent = (child - 1) / 2
            guard queues[Int(queue)].heap[child].rank < queues[Int(queue)].heap[parent].rank else { return }
            swap(queue: queue, child, parent)
            child = parent
        }
    }

    private mutating func siftDown(queue: Int32, from position: Int) {
        let count = queues[Int(queue)].heap.count
        var parent = position
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < count, queues[Int(queue)].heap[left].rank < queues[Int(queue)].heap[first].rank {
                first = left
            }
            if right < count, queues[Int(queue)].heap[right].rank < queues[Int(queue)].heap[first].rank {
                first = right
            }
            guard first != parent else { return }
            swap(queue: queue, parent, first)
            parent = first
        }
    }

    private mutating func swap(queue: Int32, _ a: Int, _ b: Int) {
        queues[Int(queue)].heap.swapAt(a, b)
        // Replaced, not changed in place: a dictionary's `_modify` accessor allocates its
        // coroutine's frame on Linux, and a swap happens log n times per queued download.
        places.updateValue(Place(queue: queue, position: Int32(a)), forKey: queues[Int(queue)].heap[a].id)
        places.updateValue(Place(queue: queue, position: Int32(b)), forKey: queues[Int(queue)].heap[b].id)
    }
}
