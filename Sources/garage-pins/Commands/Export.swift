import ArgumentParser
import DoorCore

extension GaragePins {
    /// `export`: the table, its labels and its door limits as JSON, for backups and
    /// configuration tools.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a table, its labels and door limits as JSON (a backup: it holds every PIN).",
            discussion: """
            The format: {"format":"garaged-pins","version":2,"slots":N,"master":"PIN","pins":[{"slot":1,"pin":"PIN","label":"NAME","doors":["left"]}]}; \
            a PIN without "doors" may use every door. Door limits that cannot be read (FILE.doors) \
            stop the export rather than be left out. Reading is safe while garaged runs. Keep the \
            output private (umask 077; `> backup.json`).
            """)
        @Option(help: ArgumentHelp("The table file.", valueName: "FILE")) var pins: String

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let file = OfflineTable(path: pins)
                let table = try file.load()
                let access: DoorAccess
                do throws(CLIError) { access = try file.access(for: table) } catch {
                    throw .file("\(error.description). No backup is written without the door limits: imported, it would let every limited PIN use every door")
                }
                print(TableBackup.text(table, labels: file.labels(for: table), access: access), terminator: "")
            }
        }
    }
}
