import Downstream

extension Options {
    /// The options of the *Input* and *Files* sections: what to download and where it goes.
    static let fileOptions: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["-i", "--input-file"], action: .value("FILE") { $0.inputFiles.append($1) }, section: "Input",
            help: "read URLs from FILE, one a line ('-' for standard input); blank lines and lines"
                + " starting with '#' are skipped; indented lines after a URL set its options:"
                + " 'out=NAME', 'checksum=sha-256=HEX' (or sha-512, sha-384, sha-1, md5), 'mirror=URL'"),
        OptionSpec(
            names: ["-o", "--output"], action: .value("PATH") { $0.outputs.append(.path($1)) }, section: "Files",
            help: "one URL: save it as the file PATH (curl's and aria2's -o), unless PATH is a folder (it"
                + " exists, or ends with '/'); several URLs or -i: save them in the folder PATH; several -o"
                + " (or curl's -O URL): each names the next URL, as curl's (-o a U1 -o b U2; URLs past the"
                + " last name are named after themselves); #1, #2 in PATH: the text of the URL's glob 1, 2"),
        OptionSpec(
            names: ["-d", "--dir", "--output-dir"], action: .value("DIR") { $0.outputDirectory = $1 },
            section: "Files", help: "save files in DIR (default: the current directory), named after their URLs"),
        OptionSpec(
            names: ["-P", "--directory-prefix"], action: .value("DIR") { $0.outputDirectory = $1 },
            section: "Files", help: "the same as --dir (wget's name)"),
        OptionSpec(
            names: ["-O", "--output-document"],
            // curl's -O takes no value: before another option (-O -L URL) or last, it is that.
            action: .optionalValue("FILE", accepts: { $0 == "-" || !$0.hasPrefix("-") }) {
                options, value throws(UsageError) in
                // curl's -O saves under the URL's name. A URL here is that habit; a name without a
                // scheme is a file's (see Entry.isCurlsRemoteName).
                guard let value else {
                    options.outputs.append(.remote)
                    return
                }
                if Entry.isCurlsRemoteName(value) {
                    options.urls.append(value)
                    options.outputs.append(.remote)
                } else {
                    options.outputDocument = value
                }
            },
            section: "Files",
            help: "save the one URL as FILE (wget's -O; relative to --dir when both are given); - writes it"
                + " to standard output as it comes, over one connection (also kept in dl's store: a retry"
                + " continues it, and the same command writes it all again and continues); the bytes that went"
                + " out cannot be taken back: a file that changes on the server meanwhile fails (7), a wrong"
                + " checksum is found at the end (9); binary bytes are refused on a terminal unless -o - (curl's"
                + " rule); followed by a URL (http://, https://, or HOST:PORT/…), an"
                + " option or nothing, curl's -O: save the next URL under its own name"),
        OptionSpec(
            names: ["--create-dirs"], action: .flag { _ in }, section: "Files",
            help: "make the folders of -o, -O and --dir paths (always: accepted for habit)"),
        OptionSpec(
            names: ["-g", "--globoff"], action: .flag { $0.globs = false }, section: "Files",
            help: "take [ ] and { } in URLs as they are: without it, as curl's globs, f[1-3].bin is f1.bin,"
                + " f2.bin, f3.bin ([01-10] zero padded, [a-z] letters, {a,b} a list; at most 100000 URLs)"),
        OptionSpec(
            names: ["--content-disposition"], action: .flag { $0.usesServerNames = true }, section: "Files",
            help: "name each file as the server's Content-Disposition says (made safe: no folders, no hidden"
                + " or reserved names), else after its URL; -O and out= names stay"),
        OptionSpec(
            names: ["-c", "--continue"], action: .flag { $0.continuesExistingFiles = true }, section: "Files",
            help: "also continue a file another program left (wget, curl, a browser), if its last 64 KiB are"
                + " the server's; dl's own files always continue"),
        OptionSpec(
            names: ["-C", "--continue-at"],
            action: .value("-") { options, value throws(UsageError) in
                guard value == "-" else {
                    throw .invalidValue(
                        option: "-C", value: value, expected: "'-' (dl continues from where the file ends)")
                }
                options.continuesExistingFiles = true
            },
            section: "Files", help: "curl's '-C -': the same as -c"),
        OptionSpec(
            names: ["-nc", "--no-clobber"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.keep, by: "--no-clobber") },
            section: "Files", help: "keep a file that exists and download nothing for it"),
        OptionSpec(
            names: ["-N", "--timestamping"],
            action: .flag { options throws(UsageError) in
                try options.setExistingFiles(.replaceIfChanged, by: "--timestamping")
            },
            section: "Files", help: "download a file that exists again only if it changed on the server"),
        OptionSpec(
            names: ["--overwrite"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.overwrite, by: "--overwrite") },
            section: "Files", help: "replace a file that exists"),
        OptionSpec(
            names: ["--unique"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.unique, by: "--unique") },
            section: "Files", help: "keep a file that exists and save the new one as 'name (1).ext'"),
        OptionSpec(
            names: ["--auto-file-renaming"],
            action: .optionalValue("true|false", accepts: { ["true", "false"].contains($0) }) {
                options, value throws(UsageError) in
                switch value {
                case nil, "true": try options.setExistingFiles(.unique, by: "--auto-file-renaming")
                case "false": break
                case let value?:
                    throw .invalidValue(option: "--auto-file-renaming", value: value, expected: "true or false")
                }
            },
            section: "Files", help: "the same as --unique (aria2's name; =false: dl's default, no renaming)"),
        OptionSpec(
            names: ["--save-session"], action: .value("FILE") { _, _ in }, section: "Files",
            help: "ignored: dl always keeps what it needs to continue in its store (the same command continues)"),
    ]
}
