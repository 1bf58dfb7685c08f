import ArgumentParser
import DoorCore

extension GaragePins {
    /// `export`: the table and labels as JSON, for backups and configuration tools.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a table and its labels as JSON (a backup: it holds every PIN).",
            discussion: """
            The format: {"format":"garaged-pins","version":1,"slots":N,"master":"PIN","pins":[{"slot":1,"pin":"PIN","label":"NAME"}]}. \
            Reading is safe while garaged runs. Keep the output private (umask 077; `> backup.json`).
            """)
        @Option(help: ArgumentHelp("The table file.", valueName: "FILE")) var pins: String

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let file = OfflineTable(path: pins)
                let table = try file.load()
                print(TableBackup.text(table, labels: file.labels(for: table)), terminator: "")
            }
        }
    }
}
