/// A terminal screen, as far as `dl`'s output needs one: text written at the cursor, carriage
/// return, newline (with the carriage return the terminal driver adds, as `ONLCR` does), cursor
/// up (`ESC[nA`), erase line (`ESC[2K`, `ESC[K`) and erase below (`ESC[J`); other escape
/// sequences are skipped. Lines do not wrap: a line wider than the terminal stays one line, so
/// that a test can see it.
struct ScreenModel {
    private(set) var lines: [[Character]] = [[]]
    private var row = 0
    private var column = 0
    /// An escape sequence cut off at the end of the text fed so far.
    private var pending = ""

    /// The screen's lines, without trailing empty ones.
    var text: [String] {
        var text = lines.map { String($0) }
        while let last = text.last, last.allSatisfy({ $0 == " " }) { text.removeLast() }
        return text
    }

    mutating func feed(_ input: String) {
        var scalars = Array((pending + input).unicodeScalars)[...]
        pending = ""
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\r":
                column = 0
            case "\n":
                row += 1
                column = 0
                if row == lines.count { lines.append([]) }
            case "\u{1B}":
                guard let end = scalars.firstIndex(where: { (0x40...0x7E).contains($0.value) && $0 != "[" })
                else {
                    pending = "\u{1B}" + String(String.UnicodeScalarView(scalars))
                    return
                }
                let parameters = String(String.UnicodeScalarView(scalars[scalars.startIndex..<end])).dropFirst()
                escape(final: scalars[end], parameters: String(parameters))
                scalars = scalars[(end + 1)...]
            default:
                write(Character(scalar))
            }
        }
    }

    private mutating func escape(final: Unicode.Scalar, parameters: String) {
        switch final {
        case "A":
            row = max(0, row - max(1, Int(parameters) ?? 1))
        case "K" where parameters == "2":
            lines[row] = []
        case "K":
            lines[row] = Array(lines[row].prefix(column))
        case "J":
            lines[row] = Array(lines[row].prefix(column))
            lines.removeSubrange((row + 1)...)
        default:
            break
        }
    }

    private mutating func write(_ character: Character) {
        if lines[row].count < column {
            lines[row] += Array(repeating: " ", count: column - lines[row].count)
        }
        if column < lines[row].count {
            lines[row][column] = character
        } else {
            lines[row].append(character)
        }
        column += 1
    }
}
