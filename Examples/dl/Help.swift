import Downstream

/// `dl --help`, made from the option table and the exit statuses so that it cannot drift from
/// them.
enum Help {
    static let version = "dl \(downstreamVersion) (Downstream example)"
    /// What dl says it is to servers, unless told otherwise (`-U`).
    static let userAgent = "dl/\(downstreamVersion) \(DownloadManager.Configuration.Network.defaultUserAgent)"

    static var text: String {
        var text = """
            Usage: dl [OPTION]... URL...
                   dl [OPTION]... -i FILE

            Downloads each URL into the current directory (or -d DIR), named after the
            URL, a few at a time, with a progress bar each on a terminal. Interrupted
            with Ctrl-C, or cut off by the network, dl keeps what it received: the same
            command, run again, continues from there, and counts the files it saved as
            saved. A file that exists already is not replaced: dl fails for it (status
            3) unless --no-clobber, -N, --overwrite or --unique says what to do.
            Broken connections, timeouts and server errors are tried again (3 times);
            a host that does not exist or refuses the connection fails at once, with the
            reason, unless the network itself is down (then dl waits for it).

            """
        var section = ""
        for spec in Options.table {
            if spec.section != section {
                section = spec.section
                text += "\n\(section):\n"
            }
            var names = label(spec.names)
            if let value = spec.valueName { names += " \(value)" }
            // Long options line up whether or not they have a short form.
            let label = (spec.names[0].hasPrefix("--") ? "      " : "  ") + names
            text += wrap(spec.help, label: label)
        }
        text += "\nExit status:\n"
        for code in ExitCode.all {
            text += wrap(code.meaning, label: "  \(code.rawValue)", column: 8)
        }
        text += """
              With several failures, the lowest status other than 1 wins (as in wget).

            Examples:
              dl https://example.com/big.iso
              dl -d ~/Downloads -j 2 https://example.com/a.zip https://example.com/b.zip
              dl --sha256 9f86d081…0f00a08 https://example.com/big.iso
              dl -N -i urls.txt

            """
        return text
    }

    /// `names` separated by commas, each run of spellings of one tool followed by its name
    /// (``Options/origins``): `-d, --dir (aria2), --output-dir (curl)`.
    static func label(_ names: [String]) -> String {
        var label = ""
        for (index, name) in names.enumerated() {
            label += (index == 0 ? "" : ", ") + name
            let origin = Options.origins[name]
            if let origin, index + 1 == names.count || Options.origins[names[index + 1]] != origin {
                label += " (\(origin))"
            }
        }
        return label
    }

    /// `label`, then `description` in a column from `column` (on the next line if the label is
    /// too long), wrapped to fit 80 columns.
    static func wrap(_ description: String, label: String, column: Int = 30) -> String {
        let lineWidth = 79
        let indent = String(repeating: " ", count: column)
        var lines: [String] = []
        var line = label
        if line.count + 1 > column {
            lines.append(line)
            line = indent
        } else {
            line += String(repeating: " ", count: column - line.count)
        }
        var lineHasWords = false
        for word in description.split(separator: " ") {
            if lineHasWords, line.count + 1 + word.count > lineWidth {
                lines.append(line)
                line = indent
                lineHasWords = false
            }
            line += (lineHasWords ? " " : "") + word
            lineHasWords = true
        }
        lines.append(line)
        return lines.joined(separator: "\n") + "\n"
    }
}
