import ArgumentParser
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

extension GaragePins {
    /// `init`: a new table with a master PIN.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new PIN table with a master PIN.",
            discussion: "The table is a 1024-byte file in the book's Arduino EEPROM layout, mode 0600. Labels live beside it in FILE.labels.")

        @Option(help: ArgumentHelp("The table file to create.", valueName: "FILE"))
        var pins: String

        @Option(help: ArgumentHelp("The master PIN (5 printable characters): the only PIN that manages PINs.", valueName: "PIN"))
        var master: String

        @Option(help: ArgumentHelp("How many slots, master included (1-\(PinTable.maxCapacity)).", valueName: "N"))
        var slots: Int = PinTable.defaultCapacity

        @Flag(help: "Replace an existing table (forgets every PIN and label in it).")
        var force = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard let masterPIN = PIN(master) else {
                    throw .usage("--master must be exactly 5 printable ASCII characters without spaces, e.g. 12345")
                }
                // A hand install (make install) makes no /var/lib/garaged: say so, not "cannot
                // open ….lock: No such file or directory".
                let folder = AtomicFile.directory(of: pins)
                var st = stat()
                if stat(folder, &st) != 0, errno == ENOENT {
                    throw .file("the folder \(folder) does not exist; create it first (the package makes /var/lib/garaged): sudo install -d -m 700 \(folder)")
                }
                if let holder = TableLock.holder(tablePath: pins) {
                    throw .file("PIN table \(pins) is in use by process \(holder) (a running garaged); stop it first")
                }
                let table: PinTable
                do { table = try PinTable(master: masterPIN, capacity: slots) } catch { throw .usage("--slots: \(error)") }
                let file = OfflineTable(path: pins)
                try file.withLock { () throws(CLIError) in
                    do { try PinTableFile(path: pins).create(table, force: force) } catch { throw .file("\(error)") }
                    do { try file.labelsFile.save(Labels()) } catch { throw .file("\(error)") }
                }
                print("created \(pins): \(slots) slots, master PIN in slot 0")
            }
        }
    }
}
