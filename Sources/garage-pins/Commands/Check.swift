import ArgumentParser
import DoorCore

extension GaragePins {
    /// `check FILE`: is this a table garaged will accept, and what is in it.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a table file and describe it (PINs are not shown).",
            discussion: "Exits 0 for a table garaged will load, 1 with the reason (slot and byte) otherwise. Reading is safe while garaged runs.")
        @Argument(help: ArgumentHelp("The table file.", valueName: "FILE")) var file: String
        @Flag(help: "Print JSON: {file, valid, slots, used, free, labels} or {file, valid, error}.") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let offline = OfflineTable(path: file)
                let table: PinTable
                do { table = try offline.load() } catch let error as CLIError {
                    if json { printJSON(.object([("file", .string(file)), ("valid", .bool(false)), ("error", .string(error.description))])) }
                    throw error
                } catch { throw .file("\(error)") }
                let labels = offline.labels(for: table)
                let used = table.entries.count
                if json {
                    printJSON(.object([("file", .string(file)), ("valid", .bool(true)), ("slots", .number(Int64(table.capacity))),
                                       ("used", .number(Int64(used))), ("free", .number(Int64(table.capacity - 1 - used))),
                                       ("labels", .number(Int64(labels.names.count)))]))
                    return
                }
                print("\(file): a valid garaged table (the book's EEPROM layout)")
                var t = TextTable("WHAT", "COUNT")
                t.add("slots", "\(table.capacity) (master in slot 0)")
                t.add("PINs", "\(used) used, \(table.capacity - 1 - used) free")
                t.add("labels", "\(labels.names.count)" + (labels.names.isEmpty ? "" : ": " + labels.names.keys.sorted().map { "\($0)=\(labels[$0]!)" }.joined(separator: ", ")))
                print(t.text, terminator: "")
            }
        }
    }
}
