extension Download {
    /// The app left the foreground and the manager hands its downloads to the system: a request
    /// of a ranged engine stops, and the next one continues from the bytes on disk on the engine
    /// chosen now (a system task, see ``SystemUse``). A system task runs on; a download that is
    /// not running is left as it is (it takes the engine of the moment when it starts).
    func handOff() {
        guard case .running(_, let running?) = machine.state, !running.outlivesProcess else { return }
        handle(machine.requestMoves())
    }
}
