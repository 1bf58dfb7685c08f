import ArgumentParser

/// `garaged settings-reference`: prints docs/configuration.md, every setting of the catalog as
/// a Markdown table, so the page cannot drift from the code (scripts/generate-docs.sh writes it;
/// a test fails when the committed page differs). Hidden: it is for the docs, not the owner.
struct SettingsReference: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-reference",
        abstract: "Print the configuration reference (docs/configuration.md) in Markdown.",
        shouldDisplay: false
    )

    func run() throws {
        print(SettingsReference.page, terminator: "")
    }

    static var page: String {
        var out = """
        # Configuration reference

        <!-- Generated from Sources/garaged/Config/Catalog.swift by `garaged settings-reference`:
             edit the catalog, then run scripts/generate-docs.sh. A test fails when this page is
             out of date. -->

        Every setting of garaged is a flag on its command line and a key in its config file, with
        the same name: `--pulse-ms 300` (or `--pulse-ms=300`) and `pulse-ms = 300`. An on/off
        setting is `--active-low` / `--no-active-low` on the command line and `true` or `false`
        (`yes`/`no`, `on`/`off`, `1`/`0`) in the file. A flag wins over the file. `garaged --help`
        and `man garaged` list the same settings; `garaged doctor` takes the same flags and
        `--config` and says what to fix. Settings are read only at start: restart garaged after
        a change (`sudo systemctl restart garaged`).

        ## The config file

        `garaged --config FILE` (the package's unit uses `/etc/garaged.conf`; its commented
        example is [packaging/garaged.conf.example](../packaging/garaged.conf.example)) reads
        `key = value` lines; a line starting with `#` is a comment. Without `--config`, garaged
        and `garaged doctor` read `/etc/garaged.conf` when it exists, and say which file they
        read (the start's `config` log line, doctor's `settings` line), so `sudo garaged doctor`
        checks what the service runs with; the environment variable `GARAGED_CONFIG` names
        another file to read instead, and `GARAGED_CONFIG=` (empty) reads none. A value may be
        double-quoted to hold a `#` (`ble-name = "Door #2"`). Anything that could silently
        change a setting stops garaged with a message naming the line and the key: an unknown or
        repeated key, an out-of-range or empty value (an empty `socket` would be an abstract
        socket any local user can reach), a `#` in an unquoted value (a trailing comment), text
        that is not UTF-8, a `--config` that is not a regular file. An empty flag
        (`--socket ""`) is refused the same way.

        ## One door or several

        The settings marked *per door* below are one door's own. In a file without sections
        they are the one door's. For several doors (up to 8), each `[door NAME]` line starts a
        door's own settings, and the settings for all doors stay above the first section; on the
        command line `--door.NAME.KEY VALUE` (`--door.NAME.no-KEY` for an on/off one) sets door
        NAME's KEY, over the file's section, or adding the door after the file's. NAME is 1 to
        16 of `a-z`, `0-9` and `-`, not digits alone; the first door is the one the book's app
        opens. [Several doors](several-doors.md) shows a whole file and what each mistake says.

        ## Flags that are not settings

        | flag | what |
        |---|---|
        | `--config FILE` | read the settings from FILE; a flag wins over the file. Without it, `/etc/garaged.conf` when it exists (`GARAGED_CONFIG` names another file; empty: none) |
        | `--print-advertising` | print the Bluetooth advertising and scan-response bytes in hex, and exit |
        | `--door.NAME.KEY VALUE` | door NAME's own KEY (a setting marked *per door*) |
        | `garaged doctor [flags]` | check the machine with these settings; see [troubleshooting](troubleshooting.md) |

        ## Every setting

        | key | flag | scope | values | default | meaning |
        |---|---|---|---|---|---|

        """
        for s in Catalog.all {
            out += "| `\(s.key)` | `\(s.flag)` | \(s.perDoor ? "per door" : "all doors") | \(s.values) | "
                + "\(s.defaultText.map(cell) ?? "none") | \(cell(meaning(s.help))) |\n"
        }
        return out
    }

    /// The catalog's help without the unit it ends on for `--help` ("…, milliseconds,").
    private static func meaning(_ help: String) -> String {
        var text = help
        while text.hasSuffix(",") || text.hasSuffix(" ") { text.removeLast() }
        if !text.hasSuffix(".") { text += "." }
        return text
    }

    /// Text safe in a table cell: a `|` would end it, and `<id>` would be read as HTML.
    private static func cell(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "|": out += "\\|"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }
}
