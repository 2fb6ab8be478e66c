extension Options {
    /// The tool each spelling of an option comes from, where it is another tool's, for `--help`
    /// (`-P, --directory-prefix (wget) DIR`). Spellings every tool has (`-q`, `-v`, `-i`) and
    /// dl's own have none.
    static let origins: [String: String] = [
        "-P": "wget", "--directory-prefix": "wget", "--output-document": "wget", "--content-disposition": "wget",
        "-nc": "wget", "--no-clobber": "wget", "-N": "wget", "--timestamping": "wget",
        "--continue": "wget", "-C": "curl", "--continue-at": "curl", "--create-dirs": "curl",
        "-g": "curl", "--globoff": "curl", "--auto-file-renaming": "aria2", "--save-session": "aria2",
        "--dir": "aria2", "--output-dir": "curl", "-j": "aria2", "--max-concurrent-downloads": "aria2",
        "--max-connection-per-server": "aria2", "--split": "aria2", "--silent": "curl",
        "-L": "curl", "--location": "curl", "-f": "curl", "--fail": "curl", "-Z": "curl", "--parallel": "curl",
        "--parallel-max": "curl", "--tries": "wget", "--retry": "curl", "--retry-delay": "curl",
        "--retry-wait": "aria2", "--timeout": "wget", "--connect-timeout": "curl", "--compressed": "curl",
        "--max-filesize": "curl", "--checksum": "aria2", "--insecure": "curl", "--no-check-certificate": "wget",
        "--ca-certificate": "wget", "--cacert": "curl", "--certificate": "wget", "--cert": "curl",
        "--private-key": "wget", "--key": "curl", "--pinnedpubkey": "curl", "--no-proxy": "curl",
        "-nv": "wget", "--no-verbose": "wget", "-I": "curl", "--head": "curl", "--server-response": "wget",
        "--show-error": "curl", "-n": "curl", "--netrc": "curl", "--netrc-file": "curl", "-b": "curl",
        "--cookie": "curl", "--cookie-jar": "curl", "--remove-on-error": "curl",
    ]
}
