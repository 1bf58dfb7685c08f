import ArgumentParser
import DoorCore

extension GaragePins {
    /// `import JSONFILE`: a table from a backup (or a configuration tool).
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new table and labels from a JSON backup (`-` reads stdin).",
            discussion: "The whole file is checked before anything is written; an error names the field at fault. Refuses to overwrite a table without --force, and a table a running garaged holds.")
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
                let (table, labels): (PinTable, Labels)
                do { (table, labels) = try TableBackup.decode(text) } catch {
                    throw .file("\(json) cannot be imported: \(error)")
                }
                let file = OfflineTable(path: pins)
                try file.withLock { () throws(CLIError) in try file.write(table, labels: labels, force: force) }
                print("wrote \(pins): \(table.capacity) slots, \(table.entries.count) PINs, \(labels.names.count) labels")
            }
        }
    }
}
