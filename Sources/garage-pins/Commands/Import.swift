import ArgumentParser
import DoorCore

extension GaragePins {
    /// `import JSONFILE`: a table, its labels and door limits from a backup (or a configuration
    /// tool).
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new table, labels and door limits from a JSON backup (`-` reads stdin).",
            discussion: """
            The whole file is checked before anything is written; an error names the field at fault. \
            Refuses to overwrite a table without --force, and a table a running garaged holds. A \
            version 2 backup (what `export` writes) replaces the door limits (FILE.doors) with its \
            own. A version 1 backup has none: it is imported only where no PIN is limited to some \
            doors (FILE.doors missing or empty), and refused otherwise, since it would let those \
            PINs use every door; export a new backup, or lift the limits first.
            """)
        @Argument(help: ArgumentHelp("The backup, as `export` writes it.", valueName: "JSONFILE")) var json: String
        @Option(help: ArgumentHelp("The table file to write.", valueName: "FILE")) var pins: String
        @Flag(help: "Replace an existing table.") var force = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                var text = ""
                if json == "-" {
                    while let line = readLine(strippingNewline: false) {
                        text += line
                        guard text.utf8.count <= TableBackup.maxBytes else {
                            throw .file("the backup on stdin is more than \(TableBackup.maxBytes) bytes, more than any backup garage-pins writes; is it the right file?")
                        }
                    }
                } else {
                    text = String(decoding: try readInput(json, what: "backup", limit: TableBackup.maxBytes), as: UTF8.self)
                }
                let backup: TableBackup.Contents
                do { backup = try TableBackup.decode(text) } catch {
                    throw .file("\(json) cannot be imported: \(error)")
                }
                let file = OfflineTable(path: pins)
                try file.withLock { () throws(CLIError) in
                    if backup.access == nil { try file.refuseLiftingLimits(with: json) }
                    try file.write(backup.table, labels: backup.labels, access: backup.access, force: force)
                }
                let limited = backup.access.map { ", \($0.doors.count) limited to some doors" } ?? ""
                print("wrote \(pins): \(backup.table.capacity) slots, \(backup.table.entries.count) PINs, \(backup.labels.names.count) labels\(limited)")
            }
        }
    }
}
