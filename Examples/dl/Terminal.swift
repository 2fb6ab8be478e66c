import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few system calls `dl` makes about its output.
enum Terminal {
    /// Whether `descriptor` is a terminal that understands cursor movement.
    static func isTerminal(_ descriptor: Int32, environment: [String: String]) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }

    /// The size of the terminal at `descriptor`: what the terminal says, else `COLUMNS` and
    /// `LINES`, else 80 × 24.
    static func size(of descriptor: Int32, environment: [String: String]) -> (width: Int, height: Int) {
        var size = winsize()
        let known = ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0
        let width = known && size.ws_col > 0 ? Int(size.ws_col) : environment["COLUMNS"].flatMap(Int.init) ?? 80
        let height = known && size.ws_row > 0 ? Int(size.ws_row) : environment["LINES"].flatMap(Int.init) ?? 24
        return (max(width, 1), max(height, 3))
    }

    /// Writes all of `text` to `descriptor`; a reader of standard output that went away ends the
    /// run (see ``ClosedOutput``), one of standard error is not an error of dl's.
    static func write(_ text: String, to descriptor: Int32) {
        guard !text.isEmpty else { return }
        var bytes = Array(text.utf8)
        let errorNumber = bytes.withUnsafeMutableBytes { writeAll($0, to: descriptor) }
        if errorNumber == EPIPE, descriptor == STDOUT_FILENO {
            ClosedOutput.shared.notice()
        }
    }

    /// Writes all of `bytes` to `descriptor`; returns the error number of a write that failed.
    static func writeAll(_ bytes: UnsafeMutableRawBufferPointer, to descriptor: Int32) -> Int32? {
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            #if canImport(Glibc)
                let written = Glibc.write(descriptor, rest.baseAddress, rest.count)
            #else
                let written = Darwin.write(descriptor, rest.baseAddress, rest.count)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
        return nil
    }

    /// Writes `emission`: its output to `output` (standard error when the file goes to standard
    /// output, `-O -`), its errors to standard error.
    static func write(_ emission: Emission, output: Int32 = STDOUT_FILENO) {
        write(emission.output, to: output)
        write(emission.errors, to: STDERR_FILENO)
    }
}
