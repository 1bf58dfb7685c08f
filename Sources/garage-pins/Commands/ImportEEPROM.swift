import ArgumentParser
import DoorCore

extension GaragePins {
    /// `import-eeprom DUMP --pins FILE`: moving from the book's Arduino.
    struct ImportEEPROM: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-eeprom",
            abstract: "Make a table from an EEPROM dump of the book's Arduino.",
            discussion: """
            Read the Arduino's EEPROM with avrdude in raw format, e.g. \
            `avrdude -p m328p -c arduino -P /dev/ttyACM0 -U eeprom:r:dump.bin:r`, then import it. \
            Slots the sketch zeroed and slots still reading 0xFF (never written) become free slots; \
            every PIN keeps its slot. A dump that is not the book's layout is refused with the reason.
            """)
        @Argument(help: ArgumentHelp("The 1024-byte raw dump.", valueName: "DUMP")) var dump: String
        @Option(help: ArgumentHelp("The table file to write.", valueName: "FILE")) var pins: String
        @Option(help: ArgumentHelp("Slots in the new table (default: as many as the sketch used).", valueName: "N")) var slots: Int?
        @Flag(help: "Replace an existing table.") var force = false
        @Flag(help: "Print JSON: {slots, used, zeroed, never_written}.") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let bytes = try readInput(dump, what: "dump")
                let report: EEPROMDump.Report
                do { report = try EEPROMDump.read(bytes, capacity: slots) } catch {
                    throw .file("\(dump) cannot be imported: \(error)")
                }
                let file = OfflineTable(path: pins)
                try file.withLock { () throws(CLIError) in try file.write(report.table, labels: Labels(), force: force) }
                if json {
                    printJSON(.object([("slots", .number(Int64(report.table.capacity))), ("used", .array(report.used.map { .number(Int64($0)) })),
                                       ("zeroed", .number(Int64(report.zeroed))), ("never_written", .number(Int64(report.neverWritten)))]))
                    return
                }
                print("\(dump): the book's EEPROM layout; master PIN in slot 0")
                var t = TextTable("WHAT", "FOUND")
                t.add("slots the sketch used", String(report.sketchSlots))
                t.add("PINs", report.used.isEmpty ? "none" : "\(report.used.count) in slots " + report.used.map(String.init).joined(separator: ", "))
                t.add("free (zeroed)", String(report.zeroed))
                t.add("free (never written)", String(report.neverWritten))
                print(t.text, terminator: "")
                print("wrote \(pins): \(report.table.capacity) slots. Name the PINs with `garage-pins label SLOT NAME` once garaged runs.")
            }
        }
    }
}
